package io.fanout.tensor.cuda;

import io.fanout.tensor.FloatTensor;
import io.fanout.tensor.IntTensor;
import io.fanout.tensor.LossReadback;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.JCudaDriver;

/**
 * The loss, metric and optimizer operations of a {@link CudaBackend}: softmax cross-entropy and the
 * correct count (each read back as one value, or both later without waiting), and the Adam update.
 */
final class CudaLossOps {
  private final CudaBackend be;
  private final CudaLaunches launches;
  private final DevicePool<CUdeviceptr> pool;
  private final StagedUploads staged;
  private final LossReadbacks readbacks;

  CudaLossOps(
      CudaBackend be,
      CudaLaunches launches,
      DevicePool<CUdeviceptr> pool,
      StagedUploads staged,
      LossReadbacks readbacks) {
    this.be = be;
    this.launches = launches;
    this.pool = pool;
    this.staged = staged;
    this.readbacks = readbacks;
  }

  /**
   * The loss and the correct count queued on the stream, their 16 bytes copied back asynchronously
   * ({@link LossReadbacks}): the host does not wait here.
   */
  LossReadback softmaxCrossEntropyDeferred(
      FloatTensor logits,
      int rows,
      int classes,
      IntTensor labels,
      FloatTensor probs,
      FloatTensor dLogits,
      float scale) {
    DevicePool.Lease<CUdeviceptr> work = lossWork(rows, LossReadbacks.SLOT_BYTES);
    try {
      CUdeviceptr values = queueLossSum(logits, rows, classes, labels, probs, dLogits, scale, work);
      launches.launchOneBlock(
          "count_correct",
          new KernelArgs()
              .p(be.pointer(probs, 0, (long) rows * classes))
              .i(rows)
              .i(classes)
              .p(be.pointer(labels, 0, rows))
              .p(values.withByteOffset(8)));
      staged.endGroup();
      return readbacks.queue(values);
    } finally {
      pool.release(work); // reused only by work queued after the copy back
    }
  }

  double softmaxCrossEntropy(
      FloatTensor logits,
      int rows,
      int classes,
      IntTensor labels,
      FloatTensor probs,
      FloatTensor dLogits,
      float scale) {
    DevicePool.Lease<CUdeviceptr> work = lossWork(rows, 8);
    try {
      CUdeviceptr total = queueLossSum(logits, rows, classes, labels, probs, dLogits, scale, work);
      double[] out = new double[1];
      staged.endGroup();
      CudaDriver.check("cuMemcpyDtoH", JCudaDriver.cuMemcpyDtoH(Pointer.to(out), total, 8));
      return out[0];
    } finally {
      pool.release(work);
    }
  }

  /** A buffer for the per-row losses of {@code rows} rows, then {@code tail} bytes. */
  private DevicePool.Lease<CUdeviceptr> lossWork(int rows, long tail) {
    be.current();
    return pool.acquire(8L * Math.max(rows, 1) + tail);
  }

  /**
   * Queues the softmax cross-entropy and its fixed-order sum, the per-row losses at the start of
   * {@code work} ({@link #lossWork}) and the sum (a double) right after them, at the returned
   * address.
   */
  private CUdeviceptr queueLossSum(
      FloatTensor logits,
      int rows,
      int classes,
      IntTensor labels,
      FloatTensor probs,
      FloatTensor dLogits,
      float scale,
      DevicePool.Lease<CUdeviceptr> work) {
    long n = (long) rows * classes;
    CUdeviceptr pl = be.pointer(logits, 0, n);
    CUdeviceptr pp = be.pointer(probs, 0, n);
    CUdeviceptr pd = dLogits == null ? null : be.pointer(dLogits, 0, n);
    CUdeviceptr py = be.pointer(labels, 0, rows);
    CUdeviceptr sum = work.ptr().withByteOffset(8L * Math.max(rows, 1));
    if (rows > 0) {
      launches.launchExact(
          "softmax_xent",
          rows,
          new KernelArgs().p(pl).i(rows).i(classes).p(py).p(pp).p(pd).f(scale).p(work.ptr()));
    }
    launches.launchOneBlock("sum_fixed", new KernelArgs().p(work.ptr()).l(rows).p(sum));
    return sum;
  }

  int countCorrect(FloatTensor scores, int rows, int classes, IntTensor labels) {
    CUdeviceptr ps = be.pointer(scores, 0, (long) rows * classes);
    CUdeviceptr py = be.pointer(labels, 0, rows);
    be.current();
    DevicePool.Lease<CUdeviceptr> out = pool.acquire(4);
    try {
      launches.launchOneBlock(
          "count_correct", new KernelArgs().p(ps).i(rows).i(classes).p(py).p(out.ptr()));
      int[] h = new int[1];
      staged.endGroup();
      CudaDriver.check("cuMemcpyDtoH", JCudaDriver.cuMemcpyDtoH(Pointer.to(h), out.ptr(), 4));
      return h[0];
    } finally {
      pool.release(out);
    }
  }

  void adam(
      FloatTensor params,
      FloatTensor grads,
      FloatTensor m,
      FloatTensor v,
      int n,
      float lr,
      float beta1,
      float beta2,
      float eps,
      float weightDecay,
      long step) {
    double c1 = 1.0 - Math.pow(beta1, step);
    double c2 = 1.0 - Math.pow(beta2, step);
    float stepSize = (float) (lr / c1);
    float vCorr = (float) (1.0 / Math.sqrt(c2));
    launches.launch(
        "adam",
        n,
        new KernelArgs()
            .p(be.pointer(params, 0, n))
            .p(be.pointer(grads, 0, n))
            .p(be.pointer(m, 0, n))
            .p(be.pointer(v, 0, n))
            .l(n)
            .f(beta1)
            .f(beta2)
            .f(eps)
            .f(weightDecay)
            .f(stepSize)
            .f(vCorr));
  }

  /**
   * Queues the sigmoid cross-entropy and its fixed-order sum, as {@link #queueLossSum} does for the
   * softmax; returns the address of the sum.
   */
  private CUdeviceptr queueSigmoidSum(
      FloatTensor logits,
      int rows,
      int classes,
      FloatTensor targets,
      FloatTensor probs,
      FloatTensor dLogits,
      float scale,
      DevicePool.Lease<CUdeviceptr> work) {
    long n = (long) rows * classes;
    CUdeviceptr pl = be.pointer(logits, 0, n);
    CUdeviceptr pt = be.pointer(targets, 0, n);
    CUdeviceptr pp = be.pointer(probs, 0, n);
    CUdeviceptr pd = dLogits == null ? null : be.pointer(dLogits, 0, n);
    CUdeviceptr sum = work.ptr().withByteOffset(8L * Math.max(rows, 1));
    if (rows > 0) {
      launches.launchExact(
          "sigmoid_xent",
          rows,
          new KernelArgs().p(pl).i(rows).i(classes).p(pt).p(pp).p(pd).f(scale).p(work.ptr()));
    }
    launches.launchOneBlock("sum_fixed", new KernelArgs().p(work.ptr()).l(rows).p(sum));
    return sum;
  }

  double sigmoidCrossEntropy(
      FloatTensor logits,
      int rows,
      int classes,
      FloatTensor targets,
      FloatTensor probs,
      FloatTensor dLogits,
      float scale) {
    DevicePool.Lease<CUdeviceptr> work = lossWork(rows, 8);
    try {
      CUdeviceptr total =
          queueSigmoidSum(logits, rows, classes, targets, probs, dLogits, scale, work);
      double[] out = new double[1];
      staged.endGroup();
      CudaDriver.check("cuMemcpyDtoH", JCudaDriver.cuMemcpyDtoH(Pointer.to(out), total, 8));
      return out[0];
    } finally {
      pool.release(work);
    }
  }

  int countExactMatches(FloatTensor probs, int rows, int classes, FloatTensor targets) {
    long n = (long) rows * classes;
    CUdeviceptr pp = be.pointer(probs, 0, n);
    CUdeviceptr pt = be.pointer(targets, 0, n);
    be.current();
    DevicePool.Lease<CUdeviceptr> out = pool.acquire(4);
    try {
      launches.launchOneBlock(
          "count_exact", new KernelArgs().p(pp).i(rows).i(classes).p(pt).p(out.ptr()));
      int[] h = new int[1];
      staged.endGroup();
      CudaDriver.check("cuMemcpyDtoH", JCudaDriver.cuMemcpyDtoH(Pointer.to(h), out.ptr(), 4));
      return h[0];
    } finally {
      pool.release(out);
    }
  }

  /** The loss and the exact-match count queued, copied back asynchronously. */
  LossReadback sigmoidCrossEntropyDeferred(
      FloatTensor logits,
      int rows,
      int classes,
      FloatTensor targets,
      FloatTensor probs,
      FloatTensor dLogits,
      float scale) {
    DevicePool.Lease<CUdeviceptr> work = lossWork(rows, LossReadbacks.SLOT_BYTES);
    try {
      CUdeviceptr values =
          queueSigmoidSum(logits, rows, classes, targets, probs, dLogits, scale, work);
      long n = (long) rows * classes;
      launches.launchOneBlock(
          "count_exact",
          new KernelArgs()
              .p(be.pointer(probs, 0, n))
              .i(rows)
              .i(classes)
              .p(be.pointer(targets, 0, n))
              .p(values.withByteOffset(8)));
      staged.endGroup();
      return readbacks.queue(values);
    } finally {
      pool.release(work);
    }
  }
}
