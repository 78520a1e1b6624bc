package io.fanout.nn;

import io.fanout.tensor.Activation;
import io.fanout.tensor.Backend;
import io.fanout.tensor.CounterRng;
import io.fanout.tensor.HostOps;
import java.util.Arrays;

/**
 * A stack of GNN layers whose parameters are one contiguous {@code float[]} and whose gradients are
 * another of the same length, so that a {@link io.fanout.train.GradientReducer} exchanges them in
 * one call and the optimizer updates them in one pass. Layer {@code l} (0-based) runs on block
 * {@code l} of the array {@link Block#of} returns; the last layer outputs class logits.
 *
 * <p>Not thread-safe: one model per training thread.
 */
public final class GnnModel {
  private final ModelConfig cfg;
  private final Backend be;
  private final GnnLayer[] layers;
  private final float[] params;
  private final float[] grads;
  private float[] dyBuf;

  public GnnModel(ModelConfig cfg, Backend be) {
    this.cfg = cfg;
    this.be = be;
    Activation act = Activation.parse(cfg.activation());
    layers = new GnnLayer[cfg.layers()];
    int offset = 0;
    for (int l = 0; l < cfg.layers(); l++) {
      int in = l == 0 ? cfg.inDim() : cfg.hidden();
      boolean last = l == cfg.layers() - 1;
      int out = last ? cfg.classes() : cfg.hidden();
      layers[l] =
          cfg.kind().equals("sage")
              ? new SageLayer(HostOps.CPU, l, in, out, last, act, cfg.dropout())
              : new GcnLayer(HostOps.CPU, l, in, out, last, act, cfg.dropout());
      long next = layers[l].allocate(offset);
      if (next > Integer.MAX_VALUE - 8) {
        throw new IllegalArgumentException("model has more than 2^31 parameters");
      }
      offset = (int) next;
    }
    params = new float[offset];
    grads = new float[offset];
  }

  public ModelConfig config() {
    return cfg;
  }

  public Backend backend() {
    return be;
  }

  /** TEMPORARY until the port to tensor handles. */
  public HostOps hostOps() {
    return HostOps.CPU;
  }

  public int numParams() {
    return params.length;
  }

  /** All parameters, contiguous; layers read them at fixed offsets. */
  public float[] params() {
    return params;
  }

  /** All gradients, contiguous, aligned with {@link #params()}. */
  public float[] grads() {
    return grads;
  }

  /** Glorot-uniform weights and zero biases, a pure function of {@code seed}. */
  public void init(long seed) {
    for (int l = 0; l < layers.length; l++) {
      layers[l].init(params, CounterRng.key(seed, 0x1417, l, 0));
    }
  }

  /**
   * Whether layer 0 switches to sparse products when its input has under 5% non-zeros (default
   * true). Both paths compute the same function; the sparse one is faster on bag-of-words features.
   */
  public void allowSparseInput(boolean allow) {
    for (GnnLayer l : layers) {
      l.sparseInput = allow;
    }
  }

  public void zeroGrad() {
    Arrays.fill(grads, 0f);
  }

  /**
   * Runs all layers; returns the logits of the last block's destinations ({@code
   * blocks[L-1].numDst() x classes}, row-major), valid until the next forward call.
   *
   * @param x input features of {@code blocks[0].numSrc()} nodes, row-major
   * @param train applies dropout when true
   * @param batchKey the counter-based key of this batch (dropout masks derive from it)
   */
  public float[] forward(Block[] blocks, float[] x, boolean train, long batchKey) {
    if (blocks.length != layers.length) {
      throw new IllegalArgumentException(
          "the batch has " + blocks.length + " blocks but the model " + layers.length + " layers");
    }
    float[] h = x;
    for (int l = 0; l < layers.length; l++) {
      h = layers[l].forward(params, blocks[l], h, train, batchKey);
    }
    return h;
  }

  /** Runs layer {@code l} alone in inference mode (no dropout), for layer-wise inference. */
  public float[] forwardLayer(int l, Block block, float[] x) {
    return layers[l].forward(params, block, x, false, 0L);
  }

  /**
   * Output of layer {@code l} from the last forward call ({@code numDst x layerOutDim(l)} of its
   * block, row-major; the first rows are the next block's destinations), valid until the next
   * forward call.
   */
  public float[] layerOutput(int l) {
    return layers[l].y;
  }

  /** Output width of layer {@code l}. */
  public int layerOutDim(int l) {
    return layers[l].out;
  }

  /** Floating-point operations of all dense products so far. */
  public long denseFlops() {
    long f = 0;
    for (GnnLayer l : layers) {
      f += l.flops;
    }
    return f;
  }

  /** Wall time spent in dense products so far, in nanoseconds. */
  public long denseNanos() {
    long t = 0;
    for (GnnLayer l : layers) {
      t += l.gemmNanos;
    }
    return t;
  }

  public int numLayers() {
    return layers.length;
  }

  /**
   * Accumulates into {@link #grads()} the gradients of the loss whose derivative with respect to
   * the last forward's logits is {@code dLogits}.
   */
  public void backward(float[] dLogits) {
    GnnLayer lastLayer = layers[layers.length - 1];
    int n = lastLayer.block.numDst() * lastLayer.out;
    dyBuf = Bufs.ensure(dyBuf, n);
    System.arraycopy(dLogits, 0, dyBuf, 0, n);
    float[] dy = dyBuf;
    for (int l = layers.length - 1; l >= 0; l--) {
      dy = layers[l].backward(params, grads, dy, l > 0);
    }
  }
}
