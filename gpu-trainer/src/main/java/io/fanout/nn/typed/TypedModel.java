package io.fanout.nn.typed;

import io.fanout.nn.Adam;
import io.fanout.nn.DecoderKind;
import io.fanout.nn.EmbeddingTable;
import io.fanout.nn.MlpDecoder;
import io.fanout.sample.TypedMiniBatch;
import io.fanout.tensor.Activation;
import io.fanout.tensor.Backend;
import io.fanout.tensor.CounterRng;
import io.fanout.tensor.FloatTensor;
import io.fanout.tensor.FloatView;
import io.fanout.tensor.IntTensor;
import io.fanout.tensor.TensorBufs;

/**
 * A relation-aware model of a typed graph ({@link TypedModelKind}): an input layer, then {@code L}
 * {@link TypedLayer}s, ReLU and dropout between them, the last one giving the target type's class
 * logits.
 *
 * <p>Input (level {@code L} of the batch): a type with features is projected to the input width
 * ({@link TypedModelConfig#inputWidth}: the hidden width, or hgn's {@link HgnSettings#inputWidth}),
 * {@code h = x W_in[t] + b_in[t]}; a type with a learned embedding reads its vertices' rows of an
 * {@link EmbeddingTable} (uploaded per batch; their gradient rows come back to the host and {@link
 * #updateEmbeddings} applies a sparse Adam step).
 *
 * <p>Dense parameters (input projections, then each layer's) are one contiguous tensor of the
 * backend, gradients another of the same length, as for {@link io.fanout.nn.GnnModel}: one Adam
 * updates them in one pass. Every parameter and embedding row is a pure function of the seed.
 *
 * <p>Not thread-safe: one model per training thread.
 */
public final class TypedModel implements AutoCloseable {
  private final TypedModelConfig cfg;
  private final Backend be;
  private final TypedLayer[] layers;
  private final int[] inWeight; // per type: W_in offset, -1 for an embedded type
  private final int[] inBias;
  private final int numParams;
  private final FloatTensor params;
  private final FloatTensor grads;
  private final EmbeddingTable[] tables;
  private final MlpDecoder mlp; // a link model's --decoder mlp, else null
  private final TypedBatchTensors batch;
  private FloatTensor features; // the batch's feature rows, type t from featOff[t]
  private int[] featOff;
  private final FloatTensor[] level; // level[h]: the hidden matrix after hop h (L: input)
  private final FloatTensor[] dropped; // per layer: its input after dropout
  private final boolean[] droppedCopy;
  private final long[] dropKey;
  private final IntTensor[] keep;
  private FloatTensor dy;
  private FloatTensor dx;
  private FloatTensor dLogitsUp;
  private float[] hostRows;
  private float[][] embGrad; // per embedded type: the last backward's rows, by batch node
  private boolean train;
  private final Activation act;
  private final boolean normalizeOutput;
  private FloatTensor rawOut; // hgn: the last layer's output before its L2 normalisation
  private FloatTensor dRawOut;
  private FloatTensor normOut; // hgn: the L2-normalised output before its scale
  private static final float NORM_EPS = 1e-12f;

  public TypedModel(TypedModelConfig cfg, Backend be) {
    this(cfg, be, DecoderKind.DOT);
  }

  /**
   * A model whose output rows are scored by {@code decoder} (link prediction): {@link
   * DecoderKind#MLP} adds an {@link MlpDecoder} over the output width, its parameters after the
   * layers'; {@link DecoderKind#DOT} adds none.
   */
  public TypedModel(TypedModelConfig cfg, Backend be, DecoderKind decoder) {
    this.cfg = cfg;
    this.be = be;
    int types = cfg.numTypes();
    inWeight = new int[types];
    inBias = new int[types];
    tables = new EmbeddingTable[types];
    long off = 0;
    for (int t = 0; t < types; t++) {
      TypedModelConfig.TypeInput ti = cfg.type(t);
      if (ti.embedded()) {
        inWeight[t] = inBias[t] = -1;
        tables[t] = new EmbeddingTable(ti.count(), cfg.inputWidth());
      } else {
        inWeight[t] = TypedLayer.fits(off);
        inBias[t] = TypedLayer.fits(off + (long) ti.featureDim() * cfg.inputWidth());
        off = inBias[t] + (long) cfg.inputWidth();
      }
    }
    layers = new TypedLayer[cfg.layers()];
    for (int l = 0; l < layers.length; l++) {
      layers[l] =
          switch (cfg.kind()) {
            case RGCN -> new RgcnLayer(be, cfg, l);
            case HSAGE -> new HsageLayer(be, cfg, l);
            case HGN -> new HgnLayer(be, cfg, l);
          };
      off = layers[l].allocate(TypedLayer.fits(off));
      if (l > 0 && layers[l] instanceof HgnLayer h) {
        h.follows((HgnLayer) layers[l - 1]);
      }
    }
    if (decoder == DecoderKind.MLP) {
      mlp = new MlpDecoder(be, cfg.classes());
      off = mlp.allocate(TypedLayer.fits(off));
    } else {
      mlp = null;
    }
    numParams = TypedLayer.fits(off);
    params = be.allocFloat(numParams);
    grads = be.allocFloat(numParams);
    batch = new TypedBatchTensors(be);
    level = new FloatTensor[cfg.layers() + 1];
    dropped = new FloatTensor[cfg.layers()];
    droppedCopy = new boolean[cfg.layers()];
    dropKey = new long[cfg.layers()];
    keep = new IntTensor[cfg.layers()];
    embGrad = new float[types][];
    act = cfg.kind() == TypedModelKind.HGN ? Activation.ELU : Activation.RELU;
    normalizeOutput = cfg.kind() == TypedModelKind.HGN;
  }

  public TypedModelConfig config() {
    return cfg;
  }

  public Backend backend() {
    return be;
  }

  public int numParams() {
    return numParams;
  }

  public FloatTensor paramTensor() {
    return params;
  }

  public FloatTensor gradTensor() {
    return grads;
  }

  /** The link decoder's MLP ({@code --decoder mlp}), or null. */
  public MlpDecoder decoder() {
    return mlp;
  }

  /** Type {@code t}'s learned embedding table, or null when it reads its features. */
  public EmbeddingTable embeddings(int t) {
    return tables[t];
  }

  /** A host copy of the dense parameters. */
  public float[] params() {
    float[] p = new float[numParams];
    be.download(params, 0, p, 0, numParams);
    return p;
  }

  /** A host copy of the dense gradients. */
  public float[] grads() {
    float[] g = new float[numParams];
    be.download(grads, 0, g, 0, numParams);
    return g;
  }

  public void loadParams(float[] p) {
    if (p.length < numParams) {
      throw new IllegalArgumentException("expected " + numParams + " parameters, got " + p.length);
    }
    be.upload(p, 0, params, 0, numParams);
  }

  /** Glorot weights, zero biases and uniform embedding rows: a pure function of {@code seed}. */
  public void init(long seed) {
    float[] p = new float[numParams];
    for (int t = 0; t < cfg.numTypes(); t++) {
      if (tables[t] != null) {
        tables[t].init(CounterRng.key(seed, 0xE3, t, 0));
      } else {
        TypedLayer.glorot(
            p,
            inWeight[t],
            cfg.type(t).featureDim(),
            cfg.inputWidth(),
            CounterRng.key(seed, 0x7E1, t, 0));
      }
    }
    for (int l = 0; l < layers.length; l++) {
      layers[l].init(p, CounterRng.key(seed, 0x7E, l, 0));
    }
    if (mlp != null) {
      mlp.init(p, CounterRng.key(seed, 0xDEC, 0, 0));
    }
    loadParams(p);
  }

  public void zeroGrad() {
    be.zero(grads, 0, numParams);
  }

  /**
   * Uploads {@code b} and runs the model; returns the target type's logits ({@code numSeeds x
   * classes}, row-major, from element 0), valid until the next forward.
   *
   * @param features per type, its nodes' feature rows ({@code b.nodes(t).length x featureDim},
   *     row-major); null for embedded types
   * @param train dropout on, and the input gradients kept for {@link #backward}
   * @param key the batch's counter-based key (dropout masks derive from it)
   */
  public FloatTensor forward(TypedMiniBatch b, float[][] features, boolean train, long key) {
    if (b.seedType() != cfg.target()) {
      throw new IllegalArgumentException("the batch's seed type differs from the model's");
    }
    FloatTensor out = forwardLevels(b, features, train, key);
    if (batch.rowOffset(0, cfg.target()) != 0) {
      throw new IllegalStateException("seeds of other types than the target");
    }
    return out;
  }

  /**
   * As {@link #forward} for a batch with seeds of any types (a link-prediction batch, or the
   * batches that embed one type's vertices): returns the whole output level, every seed type's rows
   * ({@code layerSize(t, 0) x classes}) from {@link #outputRowOffset}{@code (t)}, valid until the
   * next forward; {@link #backward(float[])} takes a gradient of the same layout.
   */
  public FloatTensor forwardAll(TypedMiniBatch b, float[][] features, boolean train, long key) {
    return forwardLevels(b, features, train, key);
  }

  /** The first row of type {@code t}'s seeds in the last forward's output level. */
  public int outputRowOffset(int t) {
    return batch.rowOffset(0, t);
  }

  /** Rows of the last forward's output level, all seed types. */
  public int outputRows() {
    return batch.totalRows(0);
  }

  private FloatTensor forwardLevels(TypedMiniBatch b, float[][] features, boolean train, long key) {
    if (b.numTypes() != cfg.numTypes()
        || b.layers() != cfg.layers()
        || b.numRelations() != cfg.numRelations()) {
      throw new IllegalArgumentException(
          "the batch's types, relations or hops differ from the model's");
    }
    this.train = train;
    batch.upload(b);
    int top = cfg.layers();
    int hidden = cfg.inputWidth();
    level[top] =
        TensorBufs.ensure(be, level[top], Math.max(1, (long) batch.totalRows(top) * hidden));
    uploadInput(b, features, top, hidden);
    for (int l = 0; l < layers.length; l++) {
      int hop = top - l;
      TypedLayer layer = layers[l];
      int nIn = batch.totalRows(hop) * layer.in;
      FloatTensor x = level[hop];
      boolean drop = train && cfg.dropout() > 0f && nIn > 0;
      droppedCopy[l] = drop;
      if (drop) {
        dropKey[l] = CounterRng.key(key, l);
        dropped[l] = TensorBufs.ensure(be, dropped[l], nIn);
        keep[l] = TensorBufs.ensure(be, keep[l], ((long) nIn + 31) / 32);
        be.dropoutCopy(x, 0, dropped[l], 0, nIn, cfg.dropout(), dropKey[l], keep[l]);
        x = dropped[l];
      }
      int nOut = batch.totalRows(hop - 1) * layer.out;
      level[hop - 1] = TensorBufs.ensure(be, level[hop - 1], Math.max(1, nOut));
      layer.step(train, key);
      boolean last = l == layers.length - 1;
      if (last && normalizeOutput) {
        rawOut = TensorBufs.ensure(be, rawOut, Math.max(1, nOut));
        layer.forward(params, batch, hop, x, rawOut);
        normOut = TensorBufs.ensure(be, normOut, Math.max(1, nOut));
        if (nOut > 0) {
          be.l2NormalizeRows(
              FloatView.of(rawOut),
              batch.totalRows(hop - 1),
              layer.out,
              NORM_EPS,
              FloatView.of(normOut));
          be.copy(normOut, 0, level[hop - 1], 0, nOut);
          if (cfg.hgn().outputScale() != 1f) {
            be.scale(nOut, cfg.hgn().outputScale(), level[hop - 1], 0);
          }
        }
      } else {
        layer.forward(params, batch, hop, x, level[hop - 1]);
      }
      if (!last) {
        be.activate(act, level[hop - 1], 0, nOut);
      }
    }
    return level[0];
  }

  private void uploadInput(TypedMiniBatch b, float[][] features, int top, int hidden) {
    featOff = new int[cfg.numTypes()];
    long n = 0;
    for (int t = 0; t < cfg.numTypes(); t++) {
      featOff[t] = (int) n;
      if (tables[t] == null) {
        n += (long) batch.rows(t, top) * cfg.type(t).featureDim();
      }
    }
    features = features == null ? new float[cfg.numTypes()][] : features;
    this.features = TensorBufs.ensure(be, this.features, Math.max(1, n));
    for (int t = 0; t < cfg.numTypes(); t++) {
      int rows = batch.rows(t, top);
      if (rows == 0) {
        continue;
      }
      int yo = batch.rowOffset(top, t) * hidden;
      if (tables[t] != null) {
        hostRows = ensure(hostRows, (long) rows * hidden);
        tables[t].gather(b.nodes(t), 0, rows, hostRows, 0);
        be.upload(hostRows, 0, level[top], yo, rows * hidden);
        continue;
      }
      int dim = cfg.type(t).featureDim();
      float[] x = features[t];
      if (x == null || x.length < rows * dim) {
        throw new IllegalArgumentException(
            "type '" + cfg.type(t).name() + "' needs " + rows + " feature rows of " + dim);
      }
      be.upload(x, 0, this.features, featOff[t], rows * dim);
      be.gemm(
          false,
          false,
          rows,
          hidden,
          dim,
          1f,
          this.features,
          featOff[t],
          params,
          inWeight[t],
          0f,
          level[top],
          yo);
      be.addBias(level[top], yo, rows, hidden, params, inBias[t]);
    }
  }

  /**
   * Accumulates into {@link #gradTensor()} the gradients of a loss whose derivative with respect to
   * the last training forward's logits is {@code dLogits} ({@code numSeeds x classes} from element
   * 0, read only), and keeps the embedded types' row gradients for {@link #embeddingGradient} and
   * {@link #updateEmbeddings}.
   */
  public void backward(FloatTensor dLogits) {
    if (!train) {
      throw new IllegalStateException("backward after an inference forward");
    }
    int top = cfg.layers();
    int n0 = batch.totalRows(0) * cfg.classes();
    dy = TensorBufs.ensure(be, dy, Math.max(1, n0));
    if (normalizeOutput) {
      dRawOut = TensorBufs.ensure(be, dRawOut, Math.max(1, n0));
      be.zero(dRawOut, 0, n0);
      if (n0 > 0) {
        be.copy(dLogits, 0, dy, 0, n0);
        if (cfg.hgn().outputScale() != 1f) {
          be.scale(n0, cfg.hgn().outputScale(), dy, 0);
        }
        be.l2NormalizeRowsBackward(
            FloatView.of(rawOut),
            FloatView.of(normOut),
            batch.totalRows(0),
            cfg.classes(),
            NORM_EPS,
            FloatView.of(dy),
            FloatView.of(dRawOut));
      }
      be.copy(dRawOut, 0, dy, 0, n0);
    } else {
      be.copy(dLogits, 0, dy, 0, n0);
    }
    for (int l = layers.length - 1; l >= 0; l--) {
      int hop = top - l;
      TypedLayer layer = layers[l];
      int nOut = batch.totalRows(hop - 1) * layer.out;
      if (l < layers.length - 1) {
        be.activateBackward(act, level[hop - 1], 0, dy, 0, nOut);
      }
      int nIn = batch.totalRows(hop) * layer.in;
      dx = TensorBufs.ensure(be, dx, Math.max(1, nIn));
      be.zero(dx, 0, nIn);
      FloatTensor x = droppedCopy[l] ? dropped[l] : level[hop];
      layer.backward(params, grads, batch, hop, x, dy, dx);
      if (droppedCopy[l]) {
        be.dropoutBackward(dx, 0, nIn, cfg.dropout(), dropKey[l], keep[l]);
      }
      FloatTensor swap = dy;
      dy = dx;
      dx = swap;
    }
    // dy: the input level's gradient
    int hidden = cfg.inputWidth();
    for (int t = 0; t < cfg.numTypes(); t++) {
      int rows = batch.rows(t, top);
      int go = batch.rowOffset(top, t) * hidden;
      if (tables[t] != null) {
        embGrad[t] = new float[rows * hidden];
        if (rows > 0) {
          be.download(dy, go, embGrad[t], 0, rows * hidden);
        }
        continue;
      }
      if (rows == 0) {
        continue;
      }
      int dim = cfg.type(t).featureDim();
      be.gemm(
          true, false, dim, hidden, rows, 1f, features, featOff[t], dy, go, 1f, grads, inWeight[t]);
      be.biasGrad(dy, go, rows, hidden, grads, inBias[t]);
    }
  }

  /** As {@link #backward(FloatTensor)} with host logit gradients. */
  public void backward(float[] dLogits) {
    int n = batch.totalRows(0) * cfg.classes();
    dLogitsUp = TensorBufs.ensure(be, dLogitsUp, Math.max(1, n));
    be.upload(dLogits, 0, dLogitsUp, 0, n);
    backward(dLogitsUp);
  }

  /**
   * The last backward's gradient of type {@code t}'s embedding rows, one per node of the batch
   * ({@code nodes(t).length x hidden}); null for a type that reads features.
   */
  public float[] embeddingGradient(int t) {
    return embGrad[t];
  }

  /**
   * With {@code hold}, the attention layers' edge residual weights stay those of the last forward
   * (for finite-difference checks of the gradient, which treats them as constants, as HGB does).
   */
  void holdEdgeResidual(boolean hold) {
    for (TypedLayer l : layers) {
      if (l instanceof HgnLayer h) {
        h.holdResidual(hold);
      }
    }
  }

  /** One sparse Adam step of every embedding table over the rows of the last backward's batch. */
  public void updateEmbeddings(float lr) {
    for (int t = 0; t < cfg.numTypes(); t++) {
      if (tables[t] != null && embGrad[t] != null) {
        int[] ids = batch.batch().nodes(t);
        tables[t].update(ids, ids.length, embGrad[t], 0, lr, Adam.BETA1, Adam.BETA2, Adam.EPS);
      }
    }
  }

  /**
   * Type {@code t}'s rows of level {@code h} of the last forward (level 0: the logits, level 1: the
   * last hidden layer), downloaded: {@code rows(t, h) x width}.
   */
  public float[] levelRows(int h, int t) {
    int width = h == cfg.layers() ? cfg.inputWidth() : layers[cfg.layers() - 1 - h].out;
    int rows = batch.rows(t, h);
    float[] out = new float[rows * width];
    if (rows > 0) {
      be.download(level[h], batch.rowOffset(h, t) * width, out, 0, rows * width);
    }
    return out;
  }

  private static float[] ensure(float[] a, long n) {
    if (n > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("a batch of " + n + " floats exceeds one array");
    }
    return a != null && a.length >= n ? a : new float[(int) n];
  }

  @Override
  public void close() {
    for (TypedLayer l : layers) {
      l.free();
    }
    if (mlp != null) {
      mlp.close();
    }
    batch.close();
    for (FloatTensor t : level) {
      TensorBufs.free(be, t);
    }
    for (FloatTensor t : dropped) {
      TensorBufs.free(be, t);
    }
    for (IntTensor t : keep) {
      TensorBufs.free(be, t);
    }
    TensorBufs.free(be, features);
    TensorBufs.free(be, dy);
    TensorBufs.free(be, dx);
    TensorBufs.free(be, dLogitsUp);
    TensorBufs.free(be, rawOut);
    TensorBufs.free(be, dRawOut);
    TensorBufs.free(be, normOut);
    be.free(params);
    be.free(grads);
  }
}
