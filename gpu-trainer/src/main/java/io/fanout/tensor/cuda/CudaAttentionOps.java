package io.fanout.tensor.cuda;

import io.fanout.tensor.AttentionEdges;
import io.fanout.tensor.AttentionHeads;
import io.fanout.tensor.AttentionInputs;
import io.fanout.tensor.AttentionResidual;
import io.fanout.tensor.FloatView;
import io.fanout.tensor.IntTensor;
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

  /** The device pointer of {@code v}'s {@code n} elements. */
  private CUdeviceptr at(FloatView v, long n) {
    return be.pointer(v.tensor(), v.offset(), n);
  }

  /** The device pointer of {@code v} up to its tensor's end. */
  private CUdeviceptr rest(FloatView v) {
    return be.pointer(v.tensor(), v.offset(), v.tensor().length() - (long) v.offset());
  }

  void headScores(int rows, int heads, int headDim, FloatView z, FloatView a, FloatView scores) {
    long hd = (long) heads * headDim;
    launches.launch(
        "head_scores",
        (long) rows * heads,
        new KernelArgs()
            .i(rows)
            .i(heads)
            .i(headDim)
            .p(at(z, rows * hd))
            .p(at(a, hd))
            .p(at(scores, (long) rows * heads)));
  }

  void headScoresBackward(
      int rows,
      int heads,
      int headDim,
      FloatView z,
      FloatView a,
      FloatView dScores,
      FloatView dz,
      FloatView da) {
    long hd = (long) heads * headDim;
    CUdeviceptr pds = at(dScores, (long) rows * heads);
    if (dz != null) {
      launches.launch(
          "head_scores_backward_z",
          rows * hd,
          new KernelArgs().i(rows).i(heads).i(headDim).p(at(a, hd)).p(pds).p(at(dz, rows * hd)));
    }
    if (da != null) {
      launches.launch(
          "head_scores_backward_a",
          hd,
          new KernelArgs().i(rows).i(heads).i(headDim).p(at(z, rows * hd)).p(pds).p(at(da, hd)));
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

  private CUdeviceptr relScores(AttentionEdges e, FloatView s, int heads) {
    return e.relations() == null ? null : at(s, (long) e.relationCount() * heads);
  }

  /** The residual's weights (null without one). */
  private CUdeviceptr residual(AttentionEdges e, AttentionResidual res, int heads) {
    return res == null ? null : at(res.weights(), (long) e.slots() * heads);
  }

  void aggregate(
      AttentionEdges e,
      AttentionHeads h,
      AttentionInputs in,
      AttentionResidual res,
      FloatView alpha,
      FloatView out) {
    int heads = h.heads();
    CUdeviceptr[] b = block(e);
    int rows = e.rows();
    long hd = h.width();
    CUdeviceptr pa = at(alpha, (long) e.slots() * heads);
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
            .p(at(in.dstScores(), (long) rows * heads))
            .p(rest(in.srcScores()))
            .p(relScores(e, in.relScores(), heads))
            .f(h.slope())
            .p(pa));
    launches.launch(
        "attention_aggregate",
        rows * hd,
        new KernelArgs()
            .p(b[0])
            .p(b[1])
            .i(rows)
            .i(heads)
            .i(h.headDim())
            .i(e.selfLoops() ? 1 : 0)
            .f(h.dropout())
            .f(h.keptScale())
            .l(h.key())
            .f(res == null ? 1f : res.keptShare())
            .f(res == null ? 0f : res.beta())
            .p(residual(e, res, heads))
            .p(pa)
            .p(rest(in.z()))
            .p(at(out, rows * hd)));
  }

  void aggregateBackward(
      AttentionEdges e,
      AttentionHeads h,
      AttentionInputs in,
      AttentionResidual res,
      FloatView alpha,
      FloatView dOut,
      AttentionInputs dIn) {
    int heads = h.heads();
    CUdeviceptr[] b = block(e);
    int rows = e.rows();
    long hd = h.width();
    int self = e.selfLoops() ? 1 : 0;
    CUdeviceptr pa = at(alpha, (long) e.slots() * heads);
    CUdeviceptr pg = at(dOut, rows * hd);
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
    CUdeviceptr pdz = at(dIn.z(), srcRows * hd);
    CUdeviceptr pds = at(dIn.srcScores(), (long) srcRows * heads);
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
              .i(h.headDim())
              .i(self)
              .i(e.selfRelation())
              .p(at(in.dstScores(), (long) rows * heads))
              .p(rest(in.srcScores()))
              .p(relScores(e, in.relScores(), heads))
              .f(h.slope())
              .f(h.dropout())
              .f(h.keptScale())
              .l(h.key())
              .f(res == null ? 1f : res.keptShare())
              .p(rest(in.z()))
              .p(pa)
              .p(pg)
              .p(dRaw.ptr())
              .p(at(dIn.dstScores(), (long) rows * heads)));
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
              .i(h.headDim())
              .f(h.dropout())
              .f(h.keptScale())
              .l(h.key())
              .f(res == null ? 1f : res.keptShare())
              .f(res == null ? 0f : res.beta())
              .p(residual(e, res, heads))
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
                .p(at(dIn.relScores(), (long) e.relationCount() * heads)));
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

  void residualWeights(
      AttentionEdges e, int heads, FloatView prev, IntTensor prevSlots, FloatView out) {
    int rows = e.rows();
    long slots = e.slots();
    launches.launch(
        "attention_residual_weights",
        (long) rows * heads,
        new KernelArgs()
            .p(be.pointer(e.indptr(), e.indptrOff(), rows + 1L))
            .i(rows)
            .i(heads)
            .i(e.selfLoops() ? 1 : 0)
            .p(be.pointer(prevSlots, 0, Math.max(1L, slots)))
            .p(rest(prev))
            .p(at(out, Math.max(1L, slots) * heads)));
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

  void l2NormalizeRows(FloatView x, int rows, int dim, float eps, FloatView y) {
    long n = (long) rows * dim;
    launches.launch(
        "l2_normalize_rows",
        rows,
        new KernelArgs()
            .p(be.pointer(x.tensor(), x.offset(), n))
            .i(rows)
            .i(dim)
            .f(eps)
            .p(be.pointer(y.tensor(), y.offset(), n)));
  }

  void l2NormalizeRowsBackward(
      FloatView x, FloatView y, int rows, int dim, float eps, FloatView dy, FloatView dx) {
    long n = (long) rows * dim;
    launches.launch(
        "l2_normalize_rows_backward",
        rows,
        new KernelArgs()
            .p(be.pointer(x.tensor(), x.offset(), n))
            .p(be.pointer(y.tensor(), y.offset(), n))
            .i(rows)
            .i(dim)
            .f(eps)
            .p(be.pointer(dy.tensor(), dy.offset(), n))
            .p(be.pointer(dx.tensor(), dx.offset(), n)));
  }
}
