package io.fanout.nn;

import io.fanout.tensor.CounterRng;

/**
 * A learned embedding table of one vertex type, kept on the host: one trainable {@code dim}-wide
 * vector per vertex (by type-local id), with its own sparse Adam state. Rows are stored in chunks
 * of at most 2^30 floats, so a table may pass 2^31 elements.
 *
 * <p>Sparse Adam: each {@link #update} is one optimizer step of the table (its step count grows by
 * one); only the rows it names change, their moments included; the bias correction uses the table's
 * step count, as PyTorch's {@code SparseAdam} does. No weight decay. Rows are updated in the order
 * given, each independently, so the result is deterministic.
 */
public final class EmbeddingTable {
  private static final int CHUNK_FLOATS = 1 << 30;

  private final long rows;
  private final int dim;
  private final int rowsPerChunk;
  private final float[][] values;
  private final float[][] m;
  private final float[][] v;
  private long step;

  public EmbeddingTable(long rows, int dim) {
    if (rows < 0 || dim <= 0) {
      throw new IllegalArgumentException("an embedding table of " + rows + " x " + dim);
    }
    this.rows = rows;
    this.dim = dim;
    this.rowsPerChunk = Math.max(1, CHUNK_FLOATS / dim);
    int chunks = (int) ((rows + rowsPerChunk - 1) / rowsPerChunk);
    values = new float[chunks][];
    m = new float[chunks][];
    v = new float[chunks][];
    for (int c = 0; c < chunks; c++) {
      int n = (int) Math.min(rowsPerChunk, rows - (long) c * rowsPerChunk) * dim;
      values[c] = new float[n];
      m[c] = new float[n];
      v[c] = new float[n];
    }
  }

  public long rows() {
    return rows;
  }

  public int dim() {
    return dim;
  }

  /** Optimizer steps taken. */
  public long step() {
    return step;
  }

  /** Uniform rows in {@code [-sqrt(3/dim), sqrt(3/dim)]} (unit expected norm), from {@code key}. */
  public void init(long key) {
    float a = (float) Math.sqrt(3.0 / dim);
    for (int c = 0; c < values.length; c++) {
      long first = (long) c * rowsPerChunk * dim;
      float[] x = values[c];
      for (int i = 0; i < x.length; i++) {
        x[i] = (2f * CounterRng.uniform(key, first + i) - 1f) * a;
      }
      java.util.Arrays.fill(m[c], 0f);
      java.util.Arrays.fill(v[c], 0f);
    }
    step = 0;
  }

  /** Copies the rows {@code ids[from .. from+n)} into {@code out} from {@code outOff}. */
  public void gather(int[] ids, int from, int n, float[] out, int outOff) {
    for (int i = 0; i < n; i++) {
      int id = ids[from + i];
      checkRow(id);
      System.arraycopy(
          values[id / rowsPerChunk], (id % rowsPerChunk) * dim, out, outOff + i * dim, dim);
    }
  }

  /**
   * One sparse Adam step: row {@code ids[i]} ({@code i < n}, distinct) moves by its gradient {@code
   * grad[gOff + i*dim ..)}.
   */
  public void update(
      int[] ids, int n, float[] grad, int gOff, float lr, float beta1, float beta2, float eps) {
    step++;
    double bc1 = 1.0 - Math.pow(beta1, step);
    double bc2 = 1.0 - Math.pow(beta2, step);
    float stepSize = (float) (lr / bc1);
    float bc2Sqrt = (float) Math.sqrt(bc2);
    for (int i = 0; i < n; i++) {
      int id = ids[i];
      checkRow(id);
      float[] x = values[id / rowsPerChunk];
      float[] mm = m[id / rowsPerChunk];
      float[] vv = v[id / rowsPerChunk];
      int base = (id % rowsPerChunk) * dim;
      int g0 = gOff + i * dim;
      for (int k = 0; k < dim; k++) {
        float g = grad[g0 + k];
        float mk = beta1 * mm[base + k] + (1f - beta1) * g;
        float vk = beta2 * vv[base + k] + (1f - beta2) * g * g;
        mm[base + k] = mk;
        vv[base + k] = vk;
        x[base + k] -= stepSize * mk / ((float) Math.sqrt(vk) / bc2Sqrt + eps);
      }
    }
  }

  private void checkRow(int id) {
    if (id < 0 || id >= rows) {
      throw new IndexOutOfBoundsException("embedding row " + id + " outside a table of " + rows);
    }
  }

  /** The chunks of the values (0), first moments (1) or second moments (2), for checkpoints. */
  public float[][] chunks(int which) {
    return switch (which) {
      case 0 -> values;
      case 1 -> m;
      case 2 -> v;
      default -> throw new IllegalArgumentException("which " + which);
    };
  }

  /** Restores the step count after a checkpoint's chunks were read into {@link #chunks}. */
  public void restoreStep(long step) {
    this.step = step;
  }
}
