package io.fanout.tensor.cuda;

import io.fanout.tensor.AttentionEdges;
import io.fanout.tensor.FloatTensor;
import io.fanout.tensor.TransposeAhead;
import io.fanout.tensor.TransposedCsr;
import jcuda.driver.CUdeviceptr;

/**
 * The attention operations of a {@link CudaBackend} (attention.cu) and the L2 row normalisation
 * (l2norm.cu). The backward of the attention gathers into the source rows over a transposed block
 * built on the host from the int tensors' mirrors ({@link TransposeAhead}), as the aggregation's
 * backward does; the relation-score gradient sums fixed chunks of rows, then the chunks in order.
 */
final class CudaAttentionOps {
  /** Rows per partial sum of the relation-score gradient, as on the CPU. */
  static final int REL_CHUNK_ROWS = 256;

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
    long hd = (long) heads * headDim;
    launches.launch(
        "head_scores",
        (long) rows * heads,
        new KernelArgs()
            .i(rows)
            .i(heads)
            .i(headDim)
            .p(be.pointer(z, zOff, rows * hd))
            .p(be.pointer(a, aOff, hd))
            .p(be.pointer(scores, scoresOff, (long) rows * heads)));
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
    long hd = (long) heads * headDim;
    CUdeviceptr pds = be.pointer(dScores, dScoresOff, (long) rows * heads);
    if (dz != null) {
      launches.launch(
          "head_scores_backward_z",
          rows * hd,
          new KernelArgs()
              .i(rows)
              .i(heads)
              .i(headDim)
              .p(be.pointer(a, aOff, hd))
              .p(pds)
              .p(be.pointer(dz, dzOff, rows * hd)));
    }
    if (da != null) {
      launches.launch(
          "head_scores_backward_a",
          hd,
          new KernelArgs()
              .i(rows)
              .i(heads)
              .i(headDim)
              .p(be.pointer(z, zOff, rows * hd))
              .p(pds)
              .p(be.pointer(da, daOff, hd)));
    }
  }

  /** The block's pointers: offsets, indices and relations (null without). */
  private CUdeviceptr[] block(AttentionEdges e) {
    CUdeviceptr pp = be.pointer(e.indptr(), e.indptrOff(), e.rows() + 1L);
    CUdeviceptr pi =
        be.pointer(e.indices(), e.indicesOff(), e.indices().length() - (long) e.indicesOff());
    CUdeviceptr pr =
        e.relations() == null
            ? null
            : be.pointer(
                e.relations(), e.relationsOff(), e.relations().length() - (long) e.relationsOff());
    return new CUdeviceptr[] {pp, pi, pr};
  }

  private CUdeviceptr relScores(AttentionEdges e, FloatTensor s, int off, int heads) {
    return e.relations() == null ? null : be.pointer(s, off, (long) e.relationCount() * heads);
  }

  void aggregate(
      AttentionEdges e,
      int heads,
      int headDim,
      float slope,
      float dropout,
      long key,
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
    CUdeviceptr[] b = block(e);
    int rows = e.rows();
    long hd = (long) heads * headDim;
    CUdeviceptr pa = be.pointer(alpha, alphaOff, (long) e.slots() * heads);
    launches.launch(
        "attention_softmax",
        (long) rows * heads,
        new KernelArgs()
            .p(b[0])
            .p(b[1])
            .p(b[2])
            .i(rows)
            .i(heads)
            .i(e.selfLoops() ? 1 : 0)
            .i(e.selfRelation())
            .p(be.pointer(sDst, sDstOff, (long) rows * heads))
            .p(be.pointer(sSrc, sSrcOff, sSrc.length() - (long) sSrcOff))
            .p(relScores(e, sRel, sRelOff, heads))
            .f(slope)
            .p(pa));
    launches.launch(
        "attention_aggregate",
        rows * hd,
        new KernelArgs()
            .p(b[0])
            .p(b[1])
            .i(rows)
            .i(heads)
            .i(headDim)
            .i(e.selfLoops() ? 1 : 0)
            .f(dropout)
            .f(1f / (1f - dropout))
            .l(key)
            .p(pa)
            .p(be.pointer(z, zOff, z.length() - (long) zOff))
            .p(be.pointer(out, outOff, rows * hd)));
  }

  void aggregateBackward(
      AttentionEdges e,
      int heads,
      int headDim,
      float slope,
      float dropout,
      long key,
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
    CUdeviceptr[] b = block(e);
    int rows = e.rows();
    long hd = (long) heads * headDim;
    int self = e.selfLoops() ? 1 : 0;
    CUdeviceptr pa = be.pointer(alpha, alphaOff, (long) e.slots() * heads);
    CUdeviceptr pg = be.pointer(dOut, dOutOff, rows * hd);
    TransposedCsr t =
        transposes.take(
            new TransposeAhead.Key(
                be.ints(e.indptr()).mirror,
                e.indptrOff(),
                be.ints(e.indices()).mirror,
                e.indicesOff(),
                rows,
                e.selfLoops() ? rows : 0));
    int srcRows = t.srcRows();
    CUdeviceptr pdz = be.pointer(dz, dzOff, srcRows * hd);
    CUdeviceptr pds = be.pointer(dsSrc, dsSrcOff, (long) srcRows * heads);
    be.current();
    DevicePool.Lease<CUdeviceptr> dRaw = pool.acquire(4L * Math.max(1L, (long) e.slots() * heads));
    DevicePool.Lease<CUdeviceptr> tl = null;
    DevicePool.Lease<CUdeviceptr> part = null;
    try {
      tl = uploadTemp(t);
      launches.launch(
          "attention_edge_grad",
          (long) rows * heads,
          new KernelArgs()
              .p(b[0])
              .p(b[1])
              .p(b[2])
              .i(rows)
              .i(heads)
              .i(headDim)
              .i(self)
              .i(e.selfRelation())
              .p(be.pointer(sDst, sDstOff, (long) rows * heads))
              .p(be.pointer(sSrc, sSrcOff, sSrc.length() - (long) sSrcOff))
              .p(relScores(e, sRel, sRelOff, heads))
              .f(slope)
              .f(dropout)
              .f(1f / (1f - dropout))
              .l(key)
              .p(be.pointer(z, zOff, z.length() - (long) zOff))
              .p(pa)
              .p(pg)
              .p(dRaw.ptr())
              .p(be.pointer(dsDst, dsDstOff, (long) rows * heads)));
      CUdeviceptr tptr = tl.ptr();
      CUdeviceptr tdst = tl.ptr().withByteOffset(4L * t.dstOffset());
      CUdeviceptr tpos = tl.ptr().withByteOffset(4L * t.posOffset());
      launches.launch(
          "attention_src_grad",
          srcRows * hd,
          new KernelArgs()
              .p(b[0])
              .i(rows)
              .i(self)
              .p(tptr)
              .p(tdst)
              .p(tpos)
              .i(srcRows)
              .i(heads)
              .i(headDim)
              .f(dropout)
              .f(1f / (1f - dropout))
              .l(key)
              .p(pa)
              .p(pg)
              .p(pdz));
      launches.launch(
          "attention_src_score_grad",
          (long) srcRows * heads,
          new KernelArgs()
              .p(b[0])
              .i(rows)
              .i(self)
              .p(tptr)
              .p(tdst)
              .p(tpos)
              .i(srcRows)
              .i(heads)
              .p(dRaw.ptr())
              .p(pds));
      if (e.relations() != null && e.relationCount() > 0 && rows > 0) {
        int chunks = (rows + REL_CHUNK_ROWS - 1) / REL_CHUNK_ROWS;
        long n = (long) chunks * e.relationCount() * heads;
        part = pool.acquire(4L * n);
        launches.launch(
            "attention_rel_partial",
            n,
            new KernelArgs()
                .p(b[0])
                .p(b[2])
                .i(rows)
                .i(heads)
                .i(self)
                .i(e.selfRelation())
                .i(e.relationCount())
                .i(REL_CHUNK_ROWS)
                .p(dRaw.ptr())
                .p(part.ptr()));
        launches.launch(
            "attention_rel_sum",
            (long) e.relationCount() * heads,
            new KernelArgs()
                .i(chunks)
                .i(e.relationCount())
                .i(heads)
                .p(part.ptr())
                .p(be.pointer(dsRel, dsRelOff, (long) e.relationCount() * heads)));
      }
    } finally {
      pool.release(dRaw);
      if (tl != null) {
        pool.release(tl);
      }
      if (part != null) {
        pool.release(part);
      }
    }
  }

  /**
   * Uploads {@code t}'s packed arrays into a pooled buffer released by the caller after queuing its
   * use, and hands {@code t}'s host array back for reuse.
   */
  private DevicePool.Lease<CUdeviceptr> uploadTemp(TransposedCsr t) {
    int n = t.packedLength();
    DevicePool.Lease<CUdeviceptr> l = pool.acquire(4L * Math.max(n, 1));
    try {
      staged.upload(t.packed(), 0, n, l.ptr());
    } catch (RuntimeException ex) {
      pool.release(l);
      throw ex;
    }
    transposes.release(t);
    return l;
  }

  void l2NormalizeRows(
      FloatTensor x, int xOff, int rows, int dim, float eps, FloatTensor y, int yOff) {
    long n = (long) rows * dim;
    launches.launch(
        "l2_normalize_rows",
        rows,
        new KernelArgs().p(be.pointer(x, xOff, n)).i(rows).i(dim).f(eps).p(be.pointer(y, yOff, n)));
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
    long n = (long) rows * dim;
    launches.launch(
        "l2_normalize_rows_backward",
        rows,
        new KernelArgs()
            .p(be.pointer(x, xOff, n))
            .p(be.pointer(y, yOff, n))
            .i(rows)
            .i(dim)
            .f(eps)
            .p(be.pointer(dy, dyOff, n))
            .p(be.pointer(dx, dxOff, n)));
  }
}
