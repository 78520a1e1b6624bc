package io.fanout.nn;

import io.fanout.tensor.Backend;
import io.fanout.tensor.FeatureRows;
import io.fanout.tensor.FloatTensor;
import io.fanout.tensor.IntTensor;
import io.fanout.tensor.TensorBufs;

/**
 * One mini-batch on a backend: the blocks' CSR arrays, the input features (dense, or as CSR when
 * they are sparse enough, see {@link SparseRows}) and the seeds' labels. {@link #upload} is the
 * point where a batch crosses from the host; the buffers grow as needed and are reused for the next
 * batch. Not thread-safe.
 */
public final class BatchTensors implements AutoCloseable {
  private final Backend be;
  private IntTensor[] indptr = new IntTensor[0];
  private IntTensor[] indices = new IntTensor[0];
  private DeviceBlock[] blocks = new DeviceBlock[0];
  private FloatTensor x;
  private final SparseRows host = new SparseRows();
  private boolean sparse;
  private IntTensor spPtr;
  private IntTensor spCol;
  private FloatTensor spVal;
  private IntTensor labels;
  private IntTensor ids;
  private int numLabels;
  private boolean consumed;

  BatchTensors(Backend be) {
    this.be = be;
  }

  /**
   * Uploads {@code blocks} (in application order), the input features {@code x} ({@code
   * blocks[0].numSrc() x dim}, row-major) and {@code labels[0 .. numLabels)} (null when there are
   * none). The features go up as CSR when {@code trySparse} and they have under {@link
   * SparseRows#MAX_DENSITY} non-zeros, else dense.
   */
  void upload(Block[] blocks, float[] x, int dim, boolean trySparse, int[] labels, int numLabels) {
    uploadBlocks(blocks);
    int rows = blocks[0].numSrc();
    sparse = trySparse && host.build(x, rows, dim);
    if (sparse) {
      int nnz = host.nnz();
      spPtr = TensorBufs.ensure(be, spPtr, rows + 1);
      spCol = TensorBufs.ensure(be, spCol, nnz);
      spVal = TensorBufs.ensure(be, spVal, nnz);
      be.upload(host.ptr, 0, spPtr, 0, rows + 1);
      be.upload(host.col, 0, spCol, 0, nnz);
      be.upload(host.val, 0, spVal, 0, nnz);
    } else {
      long n = (long) rows * dim;
      this.x = TensorBufs.ensure(be, this.x, n);
      be.upload(x, 0, this.x, 0, (int) n);
    }
    uploadLabels(labels, numLabels);
  }

  /**
   * Uploads {@code blocks}, the ids of the input nodes {@code nodes[0 .. blocks[0].numSrc())} and
   * the labels, and has {@code rows} read those nodes' features into the dense input matrix on the
   * backend: the features never pass through a host array (zero-copy feature access).
   */
  void upload(Block[] blocks, int[] nodes, FeatureRows rows, int[] labels, int numLabels) {
    uploadBlocks(blocks);
    int n = blocks[0].numSrc();
    if (nodes.length < n) {
      throw new IllegalArgumentException(
          "the first block has "
              + n
              + " source nodes but "
              + nodes.length
              + " node ids were given");
    }
    sparse = false;
    ids = TensorBufs.ensure(be, ids, n);
    be.upload(nodes, 0, ids, 0, n);
    this.x = TensorBufs.ensure(be, this.x, (long) n * rows.dim());
    rows.gather(ids, 0, n, this.x, 0);
    uploadLabels(labels, numLabels);
  }

  private void uploadLabels(int[] labels, int numLabels) {
    consumed = false;
    this.numLabels = labels == null ? 0 : numLabels;
    if (this.numLabels > 0) {
      this.labels = TensorBufs.ensure(be, this.labels, numLabels);
      be.upload(labels, 0, this.labels, 0, numLabels);
    }
  }

  private void uploadBlocks(Block[] blocks) {
    if (indptr.length < blocks.length) {
      indptr = java.util.Arrays.copyOf(indptr, blocks.length);
      indices = java.util.Arrays.copyOf(indices, blocks.length);
    }
    if (this.blocks.length != blocks.length) {
      this.blocks = new DeviceBlock[blocks.length];
    }
    for (int l = 0; l < blocks.length; l++) {
      Block b = blocks[l];
      int edges = b.indptr()[b.numDst()];
      indptr[l] = TensorBufs.ensure(be, indptr[l], b.numDst() + 1);
      indices[l] = TensorBufs.ensure(be, indices[l], edges);
      be.upload(b.indptr(), 0, indptr[l], 0, b.numDst() + 1);
      be.upload(b.indices(), 0, indices[l], 0, edges);
      this.blocks[l] = new DeviceBlock(indptr[l], indices[l], b.numDst(), b.numSrc(), edges);
    }
  }

  /**
   * Marks the uploaded features as consumed by a training forward, which applies layer 0's dropout
   * to them in place; fails when an earlier training forward already did (upload the batch again).
   */
  void consumeFeatures() {
    checkNotConsumed();
    consumed = true;
  }

  /** Fails when a training forward has consumed the uploaded features. */
  void checkNotConsumed() {
    if (consumed) {
      throw new IllegalStateException(
          "a training forward already applied dropout to this batch's features in place; upload"
              + " the batch again before another forward");
    }
  }

  DeviceBlock block(int l) {
    return blocks[l];
  }

  int numBlocks() {
    return blocks.length;
  }

  /** The dense input features, or null when {@link #sparseInput()}. */
  FloatTensor features() {
    return sparse ? null : x;
  }

  /** Whether the input features were uploaded as CSR ({@link #csrPtr}, ...). */
  public boolean sparseInput() {
    return sparse;
  }

  IntTensor csrPtr() {
    return spPtr;
  }

  IntTensor csrCol() {
    return spCol;
  }

  FloatTensor csrVal() {
    return spVal;
  }

  /** The host copy of the CSR offsets, for counting work. */
  int[] hostCsrPtr() {
    return host.ptr;
  }

  /** The seeds' labels (negative: unlabeled), valid for {@link #numLabels()} elements. */
  public IntTensor labels() {
    return labels;
  }

  public int numLabels() {
    return numLabels;
  }

  @Override
  public void close() {
    for (int l = 0; l < indptr.length; l++) {
      free(indptr[l]);
      free(indices[l]);
    }
    free(x);
    free(spPtr);
    free(spCol);
    free(spVal);
    free(labels);
    free(ids);
  }

  private void free(io.fanout.tensor.Tensor t) {
    if (t != null) {
      be.free(t);
    }
  }
}
