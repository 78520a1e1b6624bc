package io.fanout.nn;

import io.fanout.tensor.Activation;
import io.fanout.tensor.Backend;
import io.fanout.tensor.CounterRng;
import io.fanout.tensor.FeatureRows;
import io.fanout.tensor.FloatTensor;
import io.fanout.tensor.TensorBufs;

/**
 * A stack of GNN layers whose parameters are one contiguous tensor of the model's {@link Backend}
 * and whose gradients are another of the same length, so that a {@link
 * io.fanout.train.GradientReducer} exchanges them in one call and the optimizer updates them in one
 * pass. Layer {@code l} (0-based) runs on block {@code l} of the array {@link Block#of} returns;
 * the last layer outputs class logits.
 *
 * <p>Data stays on the backend: a training step {@link #upload uploads} a batch, runs {@link
 * #forward(BatchTensors, boolean, long)} and {@link #backward(FloatTensor)} on tensors, and reads
 * nothing back. The methods that take or return host arrays ({@link #params()}, {@link
 * #loadParams}, {@link #forward(Block[], float[], boolean, long)}, {@link #forwardLayer}, {@link
 * #layerOutput}) copy across explicitly, for checkpoints, inference and tests.
 *
 * <p>A model whose input is learned ({@link ModelConfig#learnedInput}) also owns an {@link
 * EmbeddingTable} on the host ({@link #embeddings()}), one row per vertex, outside the flat
 * parameters: {@link #uploadLearned} reads a batch's rows from it as the batch's input, the
 * backward then also computes layer 0's input gradient, and {@link #updateEmbeddings} applies a
 * sparse Adam step to those rows from it.
 *
 * <p>Not thread-safe: one model per training thread.
 */
public final class GnnModel implements AutoCloseable {
  private final ModelConfig cfg;
  private final Backend be;
  private final GnnLayer[] layers;
  private final MlpDecoder decoder;
  private final int numParams;
  private final FloatTensor params;
  private final FloatTensor grads;
  private final BatchTensors batch;
  private FloatTensor dyBuf;
  private FloatTensor dLogitsUp;
  private float[] hostOut;
  private ReusedRows reused; // of the last forward, for its backward
  private final ReusedScatter scatter;
  private final EmbeddingTable table; // null: the input is the store's features
  private FloatTensor inputGrad; // learned input: layer 0's input gradient of the last backward
  private float[] hostInputGrad;
  private float[] learnedRows; // the learned input rows of the last upload

  /** The most parameters a model holds: they live in one array. */
  public static final long MAX_PARAMS = Integer.MAX_VALUE - 8;

  /**
   * The parameters a model of {@code cfg} holds (weights and biases of every layer and of the MLP
   * decoder), counted in 64 bits, so that a model too large to build is known before it is.
   */
  public static long paramCount(ModelConfig cfg) {
    long n = 0;
    for (int l = 0; l < cfg.layers(); l++) {
      long in = l == 0 ? cfg.inDim() : cfg.hidden();
      boolean last = l == cfg.layers() - 1;
      long out = last ? cfg.classes() : cfg.hidden();
      n += (cfg.kind() == ModelKind.SAGE ? 2 : 1) * in * out + out;
      if (cfg.kind() == ModelKind.GAT) {
        // the output layer's heads each of the full width; the attention vectors over all heads
        long width = last ? cfg.attention().outputHeads() * out : out;
        n += in * (width - out) + 2 * width;
        if (cfg.attention().residualOn()) {
          n += in * out;
        }
      }
    }
    if (cfg.mlpDecoder()) {
      long d = cfg.classes();
      n += d * d + 2 * d + 1;
    }
    return n;
  }

  public GnnModel(ModelConfig cfg, Backend be) {
    this.cfg = cfg;
    this.be = be;
    long count = paramCount(cfg);
    if (count > MAX_PARAMS) {
      throw new IllegalArgumentException(
          "model has " + count + " parameters, more than the " + MAX_PARAMS + " one array holds");
    }
    Activation act = Activation.parse(cfg.activation().id());
    layers = new GnnLayer[cfg.layers()];
    int offset = 0;
    for (int l = 0; l < cfg.layers(); l++) {
      int in = l == 0 ? cfg.inDim() : cfg.hidden();
      boolean last = l == cfg.layers() - 1;
      int out = last ? cfg.classes() : cfg.hidden();
      layers[l] =
          switch (cfg.kind()) {
            case SAGE -> new SageLayer(be, l, in, out, last, act, cfg.dropout());
            case GCN -> new GcnLayer(be, l, in, out, last, act, cfg.dropout());
            case GAT -> new GatLayer(be, l, in, out, last, act, cfg.dropout(), cfg.attention());
            case RGCN, HSAGE, HGN ->
                throw new IllegalArgumentException(
                    cfg.kind().id() + " is a typed model: see io.fanout.nn.typed.TypedModel");
          };
      long next = layers[l].allocate(offset);
      if (next > Integer.MAX_VALUE - 8) {
        throw new IllegalArgumentException("model has more than 2^31 parameters");
      }
      offset = (int) next;
    }
    decoder = cfg.mlpDecoder() ? new MlpDecoder(be, cfg.classes()) : null;
    if (decoder != null) {
      long next = decoder.allocate(offset);
      if (next > Integer.MAX_VALUE - 8) {
        throw new IllegalArgumentException("model has more than 2^31 parameters");
      }
      offset = (int) next;
    }
    numParams = offset;
    params = be.allocFloat(offset);
    grads = be.allocFloat(offset);
    batch = new BatchTensors(be);
    scatter = new ReusedScatter(be);
    layers[0].inputScatter = scatter;
    table = cfg.learnedInput() ? new EmbeddingTable(cfg.embeddingRows(), cfg.inDim()) : null;
    if (table != null) {
      layers[0].inputGradient = true;
      layers[0].sparseInput = false;
    }
  }

  /** The learned input table, or null when the input is the store's feature rows. */
  public EmbeddingTable embeddings() {
    return table;
  }

  public ModelConfig config() {
    return cfg;
  }

  public Backend backend() {
    return be;
  }

  /**
   * The link decoder whose parameters follow the layers' ({@code --decoder mlp}), or null for the
   * parameter-free {@link DotDecoder}.
   */
  public MlpDecoder decoder() {
    return decoder;
  }

  public int numParams() {
    return numParams;
  }

  /** All parameters, contiguous, on the backend; layers read them at fixed offsets. */
  public FloatTensor paramTensor() {
    return params;
  }

  /** All gradients, contiguous, aligned with {@link #paramTensor()}. */
  public FloatTensor gradTensor() {
    return grads;
  }

  /** A host copy of all parameters (a download). */
  public float[] params() {
    float[] p = new float[numParams];
    be.download(params, 0, p, 0, numParams);
    return p;
  }

  /** A host copy of all gradients (a download). */
  public float[] grads() {
    float[] g = new float[numParams];
    be.download(grads, 0, g, 0, numParams);
    return g;
  }

  /** Replaces all parameters with {@code p[0 .. numParams())} (an upload). */
  public void loadParams(float[] p) {
    if (p.length < numParams) {
      throw new IllegalArgumentException("expected " + numParams + " parameters, got " + p.length);
    }
    be.upload(p, 0, params, 0, numParams);
  }

  /**
   * Glorot-uniform weights and zero biases (and uniform rows of a learned input table, see {@link
   * EmbeddingTable#init}), a pure function of {@code seed}.
   */
  public void init(long seed) {
    float[] p = new float[numParams];
    for (int l = 0; l < layers.length; l++) {
      layers[l].init(p, CounterRng.key(seed, 0x1417, l, 0));
    }
    if (decoder != null) {
      decoder.init(p, CounterRng.key(seed, 0x1417, layers.length, 1));
    }
    loadParams(p);
    if (table != null) {
      table.init(CounterRng.key(seed, 0xE3, 0, 0));
    }
  }

  /**
   * Whether layer 0 switches to sparse products when its input has under 5% non-zeros (default
   * true). Both paths compute the same function; the sparse one is faster on bag-of-words features.
   */
  public void allowSparseInput(boolean allow) {
    for (GnnLayer l : layers) {
      l.sparseInput = allow && !l.inputGradient;
    }
  }

  public void zeroGrad() {
    be.zero(grads, 0, numParams);
  }

  /**
   * Uploads a batch into the model's batch tensors (the only host-to-backend copy of a step): its
   * {@code blocks}, the input features {@code x} of {@code blocks[0].numSrc()} nodes (row-major)
   * and the labels of its first {@code numLabels} destinations ({@code labels} may be null).
   * Returns the tensors, valid until the next upload.
   */
  public BatchTensors upload(Block[] blocks, float[] x, int[] labels, int numLabels) {
    checkBlocks(blocks.length);
    batch.upload(blocks, x, cfg.inDim(), layers[0].sparseInput, labels, numLabels);
    return batch;
  }

  /**
   * As {@link #upload(Block[], float[], int[], int)} with the input features read on the backend:
   * the ids {@code nodes} of {@code blocks[0]}'s source nodes go up and {@code rows} gathers their
   * feature rows in place (zero-copy feature access); the input is always dense.
   */
  public BatchTensors upload(
      Block[] blocks, int[] nodes, FeatureRows rows, int[] labels, int numLabels) {
    checkBlocks(blocks.length);
    if (rows.dim() != cfg.inDim()) {
      throw new IllegalArgumentException(
          "feature rows of dimension " + rows.dim() + " for a model of " + cfg.inDim() + " inputs");
    }
    batch.upload(blocks, nodes, rows, labels, numLabels);
    return batch;
  }

  /**
   * As {@link #upload(Block[], float[], int[], int)} for a model with a learned input: the input
   * rows are the table's rows of {@code nodes[0 .. blocks[0].numSrc())}, read now.
   */
  public BatchTensors uploadLearned(Block[] blocks, int[] nodes, int[] labels, int numLabels) {
    if (table == null) {
      throw new IllegalStateException("the model reads the store's features, not a learned table");
    }
    checkBlocks(blocks.length);
    int n = blocks[0].numSrc();
    learnedRows = Bufs.ensure(learnedRows, (long) n * cfg.inDim());
    table.gather(nodes, 0, n, learnedRows, 0);
    batch.upload(blocks, learnedRows, cfg.inDim(), false, labels, numLabels);
    return batch;
  }

  private void checkBlocks(int n) {
    if (n != layers.length) {
      throw new IllegalArgumentException(
          "the batch has " + n + " blocks but the model " + layers.length + " layers");
    }
  }

  /**
   * Runs all layers on an uploaded batch; returns the logits of the last block's destinations
   * ({@code numDst x classes}, row-major, from element 0), valid until the next forward call. A
   * training forward applies layer 0's dropout to the uploaded features in place, so it must be the
   * last forward on that upload.
   *
   * @param train applies dropout when true
   * @param batchKey the counter-based key of this batch (dropout masks derive from it)
   */
  public FloatTensor forward(BatchTensors b, boolean train, long batchKey) {
    return forward(b, train, batchKey, null);
  }

  /**
   * As {@link #forward(BatchTensors, boolean, long)}, for a batch whose bottom block was pruned for
   * the rows {@code reused} names (null or empty: none, the batch as sampled): layer 0 computes the
   * pruned block's destinations, and its output is laid out over the full block's rows with the
   * cached embeddings in the reused rows. The next {@link #backward} passes no gradient through
   * those rows into layer 0's parameters (it appends their output gradient to the rows' {@link
   * ReusedRows#gradientSink} when there is one).
   */
  public FloatTensor forward(BatchTensors b, boolean train, long batchKey, ReusedRows reused) {
    this.reused = reused != null && reused.count() > 0 ? reused : null;
    checkBlocks(b.numBlocks());
    if (this.reused != null && b.block(0).numDst() != this.reused.computed()) {
      throw new IllegalArgumentException(
          "the bottom block has "
              + b.block(0).numDst()
              + " destinations but "
              + this.reused.computed()
              + " computed rows were named");
    }
    if (train) {
      b.consumeFeatures();
    } else {
      b.checkNotConsumed();
    }
    FloatTensor h = b.features();
    layers[0].spareRows = this.reused == null ? 0 : this.reused.count();
    boolean inputs = this.reused != null && this.reused.inputs();
    if (inputs && !(layers[0] instanceof SageLayer)) {
      throw new IllegalArgumentException("reusing layer 0's inputs needs the sage model");
    }
    layers[0].reusedInputs = inputs ? this.reused : null;
    if (train) {
      // the backward's input gradients (layers above 0) over these blocks, started beside this pass
      for (int l = 1; l < layers.length; l++) {
        layers[l].prepareInputGradient(b.block(l));
      }
    }
    for (int l = 0; l < layers.length; l++) {
      h = layers[l].forward(params, b.block(l), h, b, train, batchKey, train && l == 0);
      if (l == 0 && this.reused != null && !inputs) {
        h = scatter.expand(h, this.reused, layers[0].out);
      }
    }
    return h;
  }

  /**
   * Uploads the batch, runs all layers and downloads the logits of the last block's destinations
   * ({@code blocks[L-1].numDst() x classes}, row-major) into a host array valid until the next call
   * that returns one.
   */
  public float[] forward(Block[] blocks, float[] x, boolean train, long batchKey) {
    upload(blocks, x, null, 0);
    FloatTensor lg = forward(batch, train, batchKey, null);
    return download(lg, blocks[blocks.length - 1].numDst() * cfg.classes());
  }

  /**
   * Runs layer {@code l} alone in inference mode (no dropout) on {@code block} with input {@code x}
   * ({@code numSrc x layer input width}), for layer-wise inference; returns its output ({@code
   * numDst x layerOutDim(l)}) in a host array valid until the next call that returns one.
   */
  public float[] forwardLayer(int l, Block block, float[] x) {
    uploadLayerInput(l, block, x);
    return download(forwardUploadedLayer(l), block.numDst() * layers[l].out);
  }

  /**
   * Uploads {@code block} and its input rows {@code x} for {@link #forwardUploadedLayer}: valid
   * until this model uploads or runs a batch again, so a caller that only runs layer {@code l}
   * uploads once and computes it with changing parameters.
   */
  public void uploadLayerInput(int l, Block block, float[] x) {
    GnnLayer layer = layers[l];
    layer.spareRows = 0;
    layer.reusedInputs = null;
    reused = null;
    batch.upload(new Block[] {block}, x, layer.in, l == 0 && layer.sparseInput, null, 0);
  }

  /**
   * Layer {@code l} in inference mode over the input {@link #uploadLayerInput} uploaded last, with
   * the current parameters (the input is only read): its output on the backend, {@code numDst x
   * layerOutDim(l)} rows first, valid until this model runs again; see {@link #forwardLayer}.
   */
  public FloatTensor forwardUploadedLayer(int l) {
    return forwardUploadedLayer(l, false, 0L);
  }

  /**
   * As {@link #forwardUploadedLayer(int)}, in training mode when {@code train}: dropout on a copy
   * of the input (the upload stays as it is), its masks derived from {@code key} as a training
   * forward's from its batch key. The next {@link #backwardUploadedLayer} follows those masks.
   */
  public FloatTensor forwardUploadedLayer(int l, boolean train, long key) {
    GnnLayer layer = layers[l];
    return layer.forward(params, batch.block(0), batch.features(), batch, train, key, false);
  }

  /**
   * The backward of the last {@link #forwardUploadedLayer}{@code (l)}: sets {@link #gradTensor()}
   * to layer {@code l}'s parameter gradient for the output gradient {@code dy} ({@code numDst x
   * layerOutDim(l)}, overwritten) and zero elsewhere. The input gets no gradient.
   */
  public void backwardUploadedLayer(int l, FloatTensor dy) {
    zeroGrad();
    layers[l].backward(params, grads, dy, false);
  }

  /**
   * Output of layer {@code l} from the last forward call ({@code numDst x layerOutDim(l)} of its
   * block, row-major; the first rows are the next block's destinations), downloaded into a new host
   * array.
   */
  public float[] layerOutput(int l) {
    GnnLayer layer = layers[l];
    boolean full = l == 0 && reused != null;
    boolean expanded = full && !reused.inputs();
    int n = (full ? reused.fullRows() : layer.block.numDst()) * layer.out;
    float[] h = new float[n];
    be.download(expanded ? scatter.full() : layer.y, 0, h, 0, n);
    return h;
  }

  private float[] download(FloatTensor t, int n) {
    hostOut = Bufs.ensure(hostOut, n);
    be.download(t, 0, hostOut, 0, n);
    return hostOut;
  }

  /**
   * Layer 0's aggregated input rows over the input {@link #uploadLayerInput} uploaded last ({@code
   * numDst x 2 inDim}: each row {@code [x_v | mean of its neighbors' rows]}, with dropout on the
   * input rows first when {@code train}, its masks from {@code key} as in {@link
   * #forwardUploadedLayer(int, boolean, long)}), on the backend, valid until this model runs again:
   * what a cache of reused inputs holds ({@link ReusedRows#inputs}). No product is computed.
   * GraphSAGE on its dense path only ({@link #allowSparseInput}{@code (false)} before the upload).
   */
  public FloatTensor layerZeroInputRows(boolean train, long key) {
    if (!(layers[0] instanceof SageLayer s)) {
      throw new IllegalStateException("reusing layer 0's inputs needs the sage model");
    }
    layers[0].inputsOnly = true;
    try {
      forwardUploadedLayer(0, train, key);
    } finally {
      layers[0].inputsOnly = false;
    }
    return s.inputRows();
  }

  /** Width of a reused row: layer 0's aggregated input ({@code 2 inDim}) or its output. */
  public int reusedRowWidth(boolean inputs) {
    return inputs ? 2 * cfg.inDim() : layers[0].out;
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
   * Accumulates into {@link #gradTensor()} the gradients of the loss whose derivative with respect
   * to the last forward's logits is {@code dLogits} (read, not changed).
   */
  public void backward(FloatTensor dLogits) {
    GnnLayer lastLayer = layers[layers.length - 1];
    int n = lastLayer.block.numDst() * lastLayer.out;
    dyBuf = TensorBufs.ensure(be, dyBuf, n);
    be.copy(dLogits, 0, dyBuf, 0, n);
    FloatTensor dy = dyBuf;
    for (int l = layers.length - 1; l >= 0; l--) {
      if (l == 0 && reused != null && !reused.inputs()) {
        if (reused.gradientSink() != null) {
          scatter.accumulateReused(dy, reused, layers[0].out, reused.gradientSink());
        }
        dy = scatter.computedGradient(dy, reused, layers[0].out);
      }
      dy = layers[l].backward(params, grads, dy, l > 0 || table != null);
    }
    inputGrad = table != null ? dy : null;
  }

  /**
   * One sparse Adam step of the learned input table ({@link EmbeddingTable#update}) over the rows
   * {@code nodes[0 .. n)} (distinct; the last backward's input rows, in its order), from layer 0's
   * input gradient of that backward, at learning rate {@code lr}; no weight decay.
   */
  public void updateEmbeddings(int[] nodes, int n, float lr) {
    float[] g = inputGradient(n);
    table.update(nodes, n, g, 0, lr, Adam.BETA1, Adam.BETA2, Adam.EPS);
  }

  /**
   * The last backward's gradient of its first {@code n} input rows ({@code n x inDim}, row-major),
   * downloaded into a host array valid until the next call; a model with a learned input only.
   */
  public float[] inputGradient(int n) {
    if (table == null || inputGrad == null) {
      throw new IllegalStateException("no learned input, or no backward since the last forward");
    }
    int len = Math.multiplyExact(n, cfg.inDim());
    hostInputGrad = Bufs.ensure(hostInputGrad, len);
    be.download(inputGrad, 0, hostInputGrad, 0, len);
    return hostInputGrad;
  }

  /** As {@link #backward(FloatTensor)} with host logit gradients (uploaded first). */
  public void backward(float[] dLogits) {
    GnnLayer lastLayer = layers[layers.length - 1];
    int n = lastLayer.block.numDst() * lastLayer.out;
    dLogitsUp = TensorBufs.ensure(be, dLogitsUp, n);
    be.upload(dLogits, 0, dLogitsUp, 0, n);
    backward(dLogitsUp);
  }

  /** Frees every tensor of the model; it must not be used afterwards. */
  @Override
  public void close() {
    for (GnnLayer l : layers) {
      l.free();
    }
    batch.close();
    scatter.close();
    if (decoder != null) {
      decoder.close();
    }
    be.free(params);
    be.free(grads);
    if (dyBuf != null) {
      be.free(dyBuf);
    }
    if (dLogitsUp != null) {
      be.free(dLogitsUp);
    }
  }
}
