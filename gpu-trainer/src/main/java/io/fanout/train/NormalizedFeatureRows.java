package io.fanout.train;

import io.fanout.nn.FeatureNormKind;
import io.fanout.tensor.Backend;
import io.fanout.tensor.FeatureRows;
import io.fanout.tensor.FloatTensor;
import io.fanout.tensor.IntTensor;

/**
 * Feature rows read in place and then normalized on the backend ({@code --feature-norm l1|l2} with
 * {@code --feature-access device} or {@code zero-copy}): the rows the loader would have gathered
 * and normalized on the host, bit for bit ({@link Backend#normalizeRows}).
 */
public final class NormalizedFeatureRows implements FeatureRows {
  private final FeatureRows rows;
  private final Backend backend;
  private final boolean l1;

  private NormalizedFeatureRows(FeatureRows rows, Backend backend, boolean l1) {
    this.rows = rows;
    this.backend = backend;
    this.l1 = l1;
  }

  /** {@code rows} normalized by {@code norm}; {@code rows} itself when {@code norm} is none. */
  public static FeatureRows of(FeatureRows rows, Backend backend, FeatureNormKind norm) {
    return norm == FeatureNormKind.NONE
        ? rows
        : new NormalizedFeatureRows(rows, backend, norm == FeatureNormKind.L1);
  }

  @Override
  public int dim() {
    return rows.dim();
  }

  @Override
  public long numRows() {
    return rows.numRows();
  }

  @Override
  public void gather(IntTensor ids, int idsOff, int n, FloatTensor out, int outOff) {
    rows.gather(ids, idsOff, n, out, outOff);
    backend.normalizeRows(out, outOff, n, rows.dim(), l1);
  }

  @Override
  public void close() {
    rows.close();
  }
}
