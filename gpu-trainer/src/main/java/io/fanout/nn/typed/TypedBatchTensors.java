package io.fanout.nn.typed;

import io.fanout.sample.TypedMiniBatch;
import io.fanout.tensor.Backend;
import io.fanout.tensor.IntTensor;
import io.fanout.tensor.TensorBufs;

/**
 * A {@link TypedMiniBatch}'s structure on a backend, and the row layout of the per-type hidden
 * matrices: at level {@code h} (the nodes reached after hop {@code h}; {@code L} is the input,
 * {@code 0} the seeds) every type's rows live in ONE matrix, type {@code t} at rows {@code
 * [rowOffset(h, t), rowOffset(h, t) + rows(t, h))}. By the batch's prefix property the first {@code
 * rows(t, h-1)} of them are type {@code t}'s nodes at level {@code h-1}.
 *
 * <p>Block {@code (h, r)}'s row pointers and indices are uploaded once into two int tensors, at
 * {@link #ptrOffset} and {@link #idxOffset}; its indices are relative to the source type's rows.
 */
public final class TypedBatchTensors implements AutoCloseable {
  private final Backend be;
  private IntTensor ptr;
  private IntTensor idx;
  private TypedMiniBatch batch;
  private int[][] rowOff; // [h][t], h = 0..L
  private int[] total; // [h]
  private int[][] ptrOff; // [h-1][r]
  private int[][] idxOff;

  public TypedBatchTensors(Backend be) {
    this.be = be;
  }

  /** Uploads {@code b}'s blocks; the tensors hold them until the next upload. */
  public void upload(TypedMiniBatch b) {
    this.batch = b;
    int types = b.numTypes();
    int layers = b.layers();
    int rels = b.numRelations();
    rowOff = new int[layers + 1][types];
    total = new int[layers + 1];
    for (int h = 0; h <= layers; h++) {
      int off = 0;
      for (int t = 0; t < types; t++) {
        rowOff[h][t] = off;
        off += b.layerSize(t, h);
      }
      total[h] = off;
    }
    ptrOff = new int[layers][rels];
    idxOff = new int[layers][rels];
    long np = 0;
    long ni = 0;
    for (int h = 1; h <= layers; h++) {
      for (int r = 0; r < rels; r++) {
        ptrOff[h - 1][r] = (int) np;
        idxOff[h - 1][r] = (int) ni;
        np += b.indptr(h, r).length;
        ni += b.indices(h, r).length;
      }
    }
    if (np > Integer.MAX_VALUE - 8 || ni > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("a typed batch of more than 2^31 edges");
    }
    ptr = TensorBufs.ensure(be, ptr, Math.max(1, np));
    idx = TensorBufs.ensure(be, idx, Math.max(1, ni));
    for (int h = 1; h <= layers; h++) {
      for (int r = 0; r < rels; r++) {
        int[] p = b.indptr(h, r);
        int[] ix = b.indices(h, r);
        be.upload(p, 0, ptr, ptrOff[h - 1][r], p.length);
        if (ix.length > 0) {
          be.upload(ix, 0, idx, idxOff[h - 1][r], ix.length);
        }
      }
    }
  }

  public TypedMiniBatch batch() {
    return batch;
  }

  public int layers() {
    return batch.layers();
  }

  /** Rows of type {@code t} at level {@code h}. */
  public int rows(int t, int h) {
    return batch.layerSize(t, h);
  }

  /** The first row of type {@code t} in level {@code h}'s matrix. */
  public int rowOffset(int h, int t) {
    return rowOff[h][t];
  }

  /** Rows of level {@code h}'s matrix, all types. */
  public int totalRows(int h) {
    return total[h];
  }

  public IntTensor ptr() {
    return ptr;
  }

  public IntTensor idx() {
    return idx;
  }

  /** Where block {@code (h, r)}'s row pointers start in {@link #ptr()}. */
  public int ptrOffset(int h, int r) {
    return ptrOff[h - 1][r];
  }

  /** Where block {@code (h, r)}'s indices start in {@link #idx()}. */
  public int idxOffset(int h, int r) {
    return idxOff[h - 1][r];
  }

  /** Whether block {@code (h, r)} has any edge. */
  public boolean hasEdges(int h, int r) {
    return batch.indices(h, r).length > 0;
  }

  @Override
  public void close() {
    TensorBufs.free(be, ptr);
    TensorBufs.free(be, idx);
    ptr = null;
    idx = null;
  }
}
