package io.fanout.tensor.cuda;

import io.fanout.tensor.AttentionEdges;
import io.fanout.tensor.FloatTensor;
import io.fanout.tensor.TransposeAhead;
import jcuda.driver.CUdeviceptr;

/** The attention operations of a {@link CudaBackend} (attention.cu, l2norm.cu). */
final class CudaAttentionOps {
  private final CudaBackend be;
  private final CudaLaunches launches;
  private final DevicePool<CUdeviceptr> pool;
  private final StagedUploads staged;
  private final TransposeAhead transposes;

  CudaAttentionOps(
      CudaBackend be,
      CudaLaunches launches,
      DevicePool<CUdeviceptr> pool,
      StagedUploads staged,
      TransposeAhead transposes) {
    this.be = be;
    this.launches = launches;
    this.pool = pool;
    this.staged = staged;
    this.transposes = transposes;
  }

  void headScores(
      int rows,
      int heads,
      int headDim,
      FloatTensor z,
      int zOff,
      FloatTensor a,
      int aOff,
      FloatTensor scores,
      int scoresOff) {
    throw new UnsupportedOperationException("todo");
  }

  void headScoresBackward(
      int rows,
      int heads,
      int headDim,
      FloatTensor z,
      int zOff,
      FloatTensor a,
      int aOff,
      FloatTensor dScores,
      int dScoresOff,
      FloatTensor dz,
      int dzOff,
      FloatTensor da,
      int daOff) {
    throw new UnsupportedOperationException("todo");
  }

  void aggregate(
      AttentionEdges e,
      int heads,
      int headDim,
      float slope,
      FloatTensor sDst,
      int sDstOff,
      FloatTensor sSrc,
      int sSrcOff,
      FloatTensor sRel,
      int sRelOff,
      FloatTensor z,
      int zOff,
      FloatTensor alpha,
      int alphaOff,
      FloatTensor out,
      int outOff) {
    throw new UnsupportedOperationException("todo");
  }

  void aggregateBackward(
      AttentionEdges e,
      int heads,
      int headDim,
      float slope,
      FloatTensor sDst,
      int sDstOff,
      FloatTensor sSrc,
      int sSrcOff,
      FloatTensor sRel,
      int sRelOff,
      FloatTensor z,
      int zOff,
      FloatTensor alpha,
      int alphaOff,
      FloatTensor dOut,
      int dOutOff,
      FloatTensor dz,
      int dzOff,
      FloatTensor dsDst,
      int dsDstOff,
      FloatTensor dsSrc,
      int dsSrcOff,
      FloatTensor dsRel,
      int dsRelOff) {
    throw new UnsupportedOperationException("todo");
  }

  void l2NormalizeRows(
      FloatTensor x, int xOff, int rows, int dim, float eps, FloatTensor y, int yOff) {
    throw new UnsupportedOperationException("todo");
  }

  void l2NormalizeRowsBackward(
      FloatTensor x,
      int xOff,
      FloatTensor y,
      int yOff,
      int rows,
      int dim,
      float eps,
      FloatTensor dy,
      int dyOff,
      FloatTensor dx,
      int dxOff) {
    throw new UnsupportedOperationException("todo");
  }
}
