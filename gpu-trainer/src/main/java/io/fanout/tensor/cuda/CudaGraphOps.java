package io.fanout.tensor.cuda;

import io.fanout.tensor.Aggregation;
import io.fanout.tensor.FloatTensor;
import io.fanout.tensor.IntTensor;
import io.fanout.tensor.TransposeAhead;
import io.fanout.tensor.TransposedCsr;
import jcuda.driver.CUdeviceptr;

/**
 * The graph operations of a {@link CudaBackend}: neighbor aggregation and sparse products, whose
 * backward passes gather over a transposed CSR built on the host ({@link TransposeAhead}) and
 * uploaded for the launch.
 */
final class CudaGraphOps {
  private final CudaBackend be;
  private final CudaLaunches launches;
  private final DevicePool<CUdeviceptr> pool;
  private final StagedUploads staged;
  private final TransposeAhead transposes;

  CudaGraphOps(
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

  void aggregate(
      Aggregation mode,
      IntTensor indptr,
      int indptrOff,
      IntTensor indices,
      int indicesOff,
      int rows,
      int selfWeight,
      FloatTensor src,
      int srcOff,
      int cols,
      FloatTensor out,
      int outOff) {
    CUdeviceptr pp = be.pointer(indptr, indptrOff, rows + 1L);
    CUdeviceptr pi = be.pointer(indices, indicesOff, indices.length() - (long) indicesOff);
    CUdeviceptr ps = be.pointer(src, srcOff, src.length() - (long) srcOff);
    CUdeviceptr po = be.pointer(out, outOff, (long) rows * cols);
    launches.launch(
        "aggregate",
        (long) rows * cols,
        new KernelArgs()
            .i(mode == Aggregation.MEAN ? 1 : 0)
            .p(pp)
            .p(pi)
            .i(rows)
            .i(selfWeight)
            .p(ps)
            .i(cols)
            .p(po));
  }

  void prepareAggregateBackward(
      IntTensor indptr,
      int indptrOff,
      IntTensor indices,
      int indicesOff,
      int rows,
      int selfWeight) {
    be.pointer(indptr, indptrOff, rows + 1L);
    transposes.prepare(transposeKey(indptr, indptrOff, indices, indicesOff, rows, selfWeight));
  }

  /** The transpose that {@code aggregateBackward} with these arguments gathers over. */
  private TransposeAhead.Key transposeKey(
      IntTensor indptr,
      int indptrOff,
      IntTensor indices,
      int indicesOff,
      int rows,
      int selfWeight) {
    return new TransposeAhead.Key(
        be.ints(indptr).mirror,
        indptrOff,
        be.ints(indices).mirror,
        indicesOff,
        rows,
        selfWeight != 0 ? rows : 0);
  }

  void aggregateBackward(
      Aggregation mode,
      IntTensor indptr,
      int indptrOff,
      IntTensor indices,
      int indicesOff,
      int rows,
      int selfWeight,
      FloatTensor dOut,
      int dOutOff,
      int cols,
      FloatTensor dSrc,
      int dSrcOff) {
    CUdeviceptr pp = be.pointer(indptr, indptrOff, rows + 1L);
    CUdeviceptr pd = be.pointer(dOut, dOutOff, (long) rows * cols);
    TransposedCsr t =
        transposes.take(transposeKey(indptr, indptrOff, indices, indicesOff, rows, selfWeight));
    CUdeviceptr ps = be.pointer(dSrc, dSrcOff, (long) t.srcRows() * cols);
    DevicePool.Lease<CUdeviceptr> tl = uploadTemp(t);
    try {
      launches.launch(
          "aggregate_backward",
          (long) t.srcRows() * cols,
          new KernelArgs()
              .i(mode == Aggregation.MEAN ? 1 : 0)
              .p(pp)
              .i(rows)
              .i(selfWeight)
              .p(tl.ptr())
              .p(tl.ptr().withByteOffset(4L * t.dstOffset()))
              .i(t.srcRows())
              .p(pd)
              .i(cols)
              .p(ps));
    } finally {
      pool.release(tl);
    }
  }

  /**
   * Uploads {@code t}'s packed arrays into a pooled buffer released by the caller after queuing its
   * use, and hands {@code t}'s host array back for reuse (the upload copied it).
   */
  private DevicePool.Lease<CUdeviceptr> uploadTemp(TransposedCsr t) {
    be.current();
    int n = t.packedLength();
    DevicePool.Lease<CUdeviceptr> l = pool.acquire(4L * Math.max(n, 1));
    try {
      staged.upload(t.packed(), 0, n, l.ptr());
    } catch (RuntimeException e) {
      pool.release(l);
      throw e;
    }
    transposes.release(t);
    return l;
  }

  void spmm(
      IntTensor ptr,
      IntTensor col,
      FloatTensor val,
      int rows,
      FloatTensor b,
      int bOff,
      int n,
      float beta,
      FloatTensor c,
      int cOff) {
    CUdeviceptr pc = be.pointer(c, cOff, (long) rows * n);
    launches.launch(
        "spmm",
        (long) rows * n,
        new KernelArgs()
            .p(be.pointer(ptr, 0, rows + 1L))
            .p(be.pointer(col, 0, col.length()))
            .p(be.pointer(val, 0, val.length()))
            .i(rows)
            .p(be.pointer(b, bOff, b.length() - (long) bOff))
            .i(n)
            .f(beta)
            .p(pc));
  }

  void spmmTransposed(
      IntTensor ptr,
      IntTensor col,
      FloatTensor val,
      int rows,
      FloatTensor dy,
      int dyOff,
      int n,
      FloatTensor g,
      int gOff) {
    CUdeviceptr pd = be.pointer(dy, dyOff, (long) rows * n);
    TransposedCsr t = transposes.take(transposeKey(ptr, 0, col, 0, rows, 0));
    CUdeviceptr pg = be.pointer(g, gOff, (long) t.srcRows() * n);
    DevicePool.Lease<CUdeviceptr> tl = uploadTemp(t);
    try {
      launches.launch(
          "spmm_transposed",
          (long) t.srcRows() * n,
          new KernelArgs()
              .p(tl.ptr())
              .p(tl.ptr().withByteOffset(4L * t.dstOffset()))
              .p(tl.ptr().withByteOffset(4L * t.posOffset()))
              .p(be.pointer(val, 0, val.length()))
              .i(t.srcRows())
              .p(pd)
              .i(n)
              .p(pg));
    } finally {
      pool.release(tl);
    }
  }
}
