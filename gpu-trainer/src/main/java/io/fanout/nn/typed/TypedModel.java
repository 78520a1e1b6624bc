package io.fanout.nn.typed;

import io.fanout.nn.Adam;
import io.fanout.nn.DecoderKind;
import io.fanout.nn.EmbeddingTable;
import io.fanout.nn.MlpDecoder;
import io.fanout.sample.TypedMiniBatch;
import io.fanout.tensor.Activation;
import io.fanout.tensor.Aggregation;
import io.fanout.tensor.Backend;
import io.fanout.tensor.CounterRng;
import io.fanout.tensor.FeatureRows;
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
 * #updateEmbeddings} applies a sparse Adam step). A type whose rows the backend reads in place
 * ({@link #readFeaturesFrom}, {@code --feature-access zero-copy|device}) gets only its node ids
 * uploaded; the backend writes its rows into the input matrix.
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
  private FeatureRows[] inPlace; // per type: the rows the backend reads in place, or null
  private IntTensor inputIds; // the node ids of the types read in place, type by type
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
  private TypedBatchTensors inputTensors; // the layout of the last forward's input level
  private ReusedBottom reused; // the last forward's pruned bottom hop, or null
  private BottomPass stepBottom; // layer 0 of a step on a pruned bottom hop
  private BottomPass refreshBottom; // layer 0 of bottomLayer
  private IntTensor reuseIdx; // one-edge-per-row blocks that place and take back the reused rows
  private FloatTensor reuseRows; // layer 0's computed rows, then the cache rows a step reads
  private FloatTensor dyBottom;
  private boolean keepReusedGradients; // a deferred backward reads the reused rows' gradients
  private FloatTensor dyHot; // the last backward's reused rows' gradients, hot row by hot row
  private float[] dyHostHot;

  public TypedModel(TypedModelConfig cfg, Backend be) {
    this(cfg, be, DecoderKind.DOT);
  }

  /**
   * A model whose output rows are scored by {@code decoder} (link prediction): {@link
   * DecoderKind#MLP} adds an {@link MlpDecoder} over the output width, its parameters after the
   * layers'; {@link DecoderKind#DOT} adds none.
   */
  public TypedModel(TypedModelConfig cfg, Backend be, DecoderKind decoder) {
    this(cfg, be, decoder, true);
  }

  /**
   * A copy of {@code cfg}'s model for {@link #bottomLayer} only, on {@code be} (the worker of an
   * overlapped hot-embedding refresh): the same parameter layout, loaded with {@link #loadParams},
   * but no embedding tables: {@link #bottomLayer} reads an embedded type's input rows from its
   * {@code features} (rows of {@link TypedModelConfig#inputWidth()} floats, a snapshot of the
   * trained tables' rows).
   */
  public static TypedModel bottomLayerCopy(TypedModelConfig cfg, Backend be) {
    return new TypedModel(cfg, be, DecoderKind.DOT, false);
  }

  /**
   * A {@link #bottomLayerCopy} on this model's backend that reads the types this model reads in
   * place from the same rows ({@link #readFeaturesFrom}; {@code features[t]} of those types are
   * ignored), the others as {@link #bottomLayerCopy} does.
   */
  public TypedModel bottomLayerCopy() {
    TypedModel copy = bottomLayerCopy(cfg, be);
    return inPlace == null ? copy : copy.readFeaturesFrom(inPlace);
  }

  private TypedModel(TypedModelConfig cfg, Backend be, DecoderKind decoder, boolean withTables) {
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
        tables[t] = withTables ? new EmbeddingTable(ti.count(), cfg.inputWidth()) : null;
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

  /**
   * Has the backend read the input rows of each type {@code t} with {@code rows[t]} not null from
   * {@code rows[t]} ({@code --feature-access zero-copy|device}): a forward uploads that type's node
   * ids only, and the {@code features[t]} it is given are ignored (pass null). The model does not
   * own the rows: close them after the last forward, before the backend. Call before training.
   *
   * @throws IllegalArgumentException when a type with rows embeds its input or its rows have
   *     another width than the type's features
   */
  public TypedModel readFeaturesFrom(FeatureRows[] rows) {
    if (rows.length != cfg.numTypes()) {
      throw new IllegalArgumentException(
          "feature rows for " + rows.length + " types; the model has " + cfg.numTypes());
    }
    for (int t = 0; t < rows.length; t++) {
      if (rows[t] != null && (tables[t] != null || rows[t].dim() != cfg.type(t).featureDim())) {
        throw new IllegalArgumentException(
            "type '"
                + cfg.type(t).name()
                + "' reads "
                + (tables[t] != null
                    ? "a learned embedding"
                    : cfg.type(t).featureDim() + " features")
                + ", not rows of "
                + rows[t].dim());
      }
    }
    this.inPlace = rows.clone();
    return this;
  }

  /** Whether the backend reads type {@code t}'s input rows in place ({@link #readFeaturesFrom}). */
  public boolean readsInPlace(int t) {
    return inPlace != null && inPlace[t] != null;
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
    return forward(b, features, train, key, null, null);
  }

  /**
   * As {@link #forward(TypedMiniBatch, float[][], boolean, long)}, with layer 0 run on {@code
   * reused}'s pruned bottom hop (when not null): {@code features} are then that block's input rows,
   * and the hot rows of level {@code L-1} take layer 0's output from {@code cache} (rows of {@link
   * #layerOut(int) layerOut(0)} floats, before the activation, as {@link #bottomLayer} computes
   * them). The cached rows are constants: {@link #backward} gives layer 0 the computed rows'
   * gradient only. Each row is placed and taken back by an exact one-edge-per-row sum on the
   * backend.
   */
  public FloatTensor forward(
      TypedMiniBatch b,
      float[][] features,
      boolean train,
      long key,
      ReusedBottom reused,
      FloatTensor cache) {
    if (b.seedType() != cfg.target()) {
      throw new IllegalArgumentException("the batch's seed type differs from the model's");
    }
    FloatTensor out = forwardLevels(b, features, train, key, reused, cache);
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
    return forwardLevels(b, features, train, key, null, null);
  }

  /**
   * As {@link #forwardAll(TypedMiniBatch, float[][], boolean, long)} with layer 0 run on {@code
   * reused}'s pruned bottom hop (when not null), as {@link #forward(TypedMiniBatch, float[][],
   * boolean, long, ReusedBottom, FloatTensor)} runs it: a link batch with reused rows.
   */
  public FloatTensor forwardAll(
      TypedMiniBatch b,
      float[][] features,
      boolean train,
      long key,
      ReusedBottom reused,
      FloatTensor cache) {
    return forwardLevels(b, features, train, key, reused, cache);
  }

  /** The first row of type {@code t}'s seeds in the last forward's output level. */
  public int outputRowOffset(int t) {
    return batch.rowOffset(0, t);
  }

  /** Rows of the last forward's output level, all seed types. */
  public int outputRows() {
    return batch.totalRows(0);
  }

  private FloatTensor forwardLevels(
      TypedMiniBatch b,
      float[][] features,
      boolean train,
      long key,
      ReusedBottom reused,
      FloatTensor cache) {
    if (b.numTypes() != cfg.numTypes()
        || b.layers() != cfg.layers()
        || b.numRelations() != cfg.numRelations()) {
      throw new IllegalArgumentException(
          "the batch's types, relations or hops differ from the model's");
    }
    this.train = train;
    this.reused = reused;
    batch.upload(b);
    int top = cfg.layers();
    int first = 0;
    if (reused != null) {
      placeReusedBottom(reused, features, train, key, cache);
      first = 1;
    } else {
      int hidden = cfg.inputWidth();
      level[top] =
          TensorBufs.ensure(be, level[top], Math.max(1, (long) batch.totalRows(top) * hidden));
      featOff = new int[cfg.numTypes()];
      this.features = uploadInput(batch, top, features, this.features, featOff, level[top]);
      inputTensors = batch;
    }
    for (int l = first; l < layers.length; l++) {
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

  /**
   * Layer 0 of {@code reused}'s pruned block (on {@link #stepBottom}), placed with the cached rows
   * at their rows of level {@code L-1}: the computed rows and the cache's rows are laid out one
   * after the other, then every row of the level takes its own by a one-edge-per-row sum.
   */
  private void placeReusedBottom(
      ReusedBottom reused, float[][] features, boolean train, long key, FloatTensor cache) {
    int top = cfg.layers();
    int rows = batch.totalRows(top - 1);
    if (top < 2 || reused.rows() != rows) {
      throw new IllegalArgumentException(
          "the pruned bottom hop has " + reused.rows() + " rows, the batch's level " + rows);
    }
    stepBottom = stepBottom == null ? new BottomPass(be) : stepBottom;
    FloatTensor computed = bottomPass(stepBottom, reused.block(), features, train, key);
    inputTensors = stepBottom.tensors;
    int w = layers[0].out;
    int nc = reused.fullRow().length;
    int nh = reused.hotRow().length;
    int[] srcOf = new int[rows];
    for (int k = 0; k < nc; k++) {
      srcOf[reused.fullRow()[k]] = k;
    }
    for (int j = 0; j < nh; j++) {
      srcOf[reused.hotRow()[j]] = nc + j;
    }
    // [iota (rows + 1) | hot slots | source of each level row | level row of each computed row |
    //  level row of each hot row]
    reuseIdx = TensorBufs.ensure(be, reuseIdx, (long) rows + 1 + nh + rows + nc + nh);
    int[] iota = new int[rows + 1];
    for (int i = 0; i <= rows; i++) {
      iota[i] = i;
    }
    be.upload(iota, 0, reuseIdx, 0, rows + 1);
    if (nh > 0) {
      be.upload(reused.hotSlot(), 0, reuseIdx, rows + 1, nh);
    }
    be.upload(srcOf, 0, reuseIdx, rows + 1 + nh, rows);
    if (nc > 0) {
      be.upload(reused.fullRow(), 0, reuseIdx, rows + 1 + nh + rows, nc);
    }
    if (nh > 0) {
      be.upload(reused.hotRow(), 0, reuseIdx, rows + 1 + nh + rows + nc, nh);
    }
    reuseRows = TensorBufs.ensure(be, reuseRows, Math.max(1, (long) rows * w));
    if (nc > 0) {
      be.copy(computed, 0, reuseRows, 0, nc * w);
    }
    if (nh > 0) {
      be.aggregate(
          Aggregation.SUM, reuseIdx, 0, reuseIdx, rows + 1, nh, 0, cache, 0, w, reuseRows, nc * w);
    }
    level[top - 1] = TensorBufs.ensure(be, level[top - 1], Math.max(1, (long) rows * w));
    if (rows > 0) {
      be.aggregate(
          Aggregation.SUM,
          reuseIdx,
          0,
          reuseIdx,
          rows + 1 + nh,
          rows,
          0,
          reuseRows,
          0,
          w,
          level[top - 1],
          0);
      be.activate(act, level[top - 1], 0, rows * w);
    }
  }

  /**
   * Layer 0, before the activation, of the one-hop batch {@code block} from the input rows {@code
   * features} of its nodes, as a training forward computes it (input projection or embedding rows,
   * dropout keyed by {@code key} when {@code train}); returns {@code block.totalRows(0) x
   * layerOut(0)} floats, type by type, valid until the next call. The refresh of {@code
   * --reuse-hot}'s cache; it leaves the state of the last {@link #forward} alone but layer 0's
   * (call it before a step's forward, not between a forward and its backward).
   */
  public FloatTensor bottomLayer(
      TypedMiniBatch block, float[][] features, boolean train, long key) {
    if (block.layers() != 1
        || block.numTypes() != cfg.numTypes()
        || block.numRelations() != cfg.numRelations()) {
      throw new IllegalArgumentException("layer 0 runs on a one-hop batch of the model's types");
    }
    refreshBottom = refreshBottom == null ? new BottomPass(be) : refreshBottom;
    return bottomPass(refreshBottom, block, features, train, key);
  }

  /**
   * With {@code keep}, a backward after a forward on a {@link ReusedBottom} keeps the gradient of
   * its reused rows' layer-0 outputs (before the activation) for {@link #reusedRowGradients}: one
   * exact gather on the backend and one download a step (a deferred backward's input).
   */
  public void keepReusedGradients(boolean keep) {
    this.keepReusedGradients = keep;
  }

  /**
   * The last backward's gradient of the reused rows' layer-0 outputs (before the activation),
   * {@code reused.hotRow().length x layerOut(0)}, row {@code j} for {@code reused.hotRow()[j]}
   * (valid until the next backward; only with {@link #keepReusedGradients}).
   */
  public float[] reusedRowGradients() {
    return dyHostHot;
  }

  /**
   * Accumulates into {@link #gradTensor()} the dense parameters' gradient of the last {@link
   * #bottomLayer}'s output, given its gradient {@code dOut} ({@code block.totalRows(0) x
   * layerOut(0)}, before the activation): through layer 0, its input dropout and the input
   * projections (a deferred backward of reused rows). Embedded types' rows get none, and the
   * embedding-row gradients of the last step's backward stay as they were.
   */
  public void bottomLayerBackward(FloatTensor dOut) {
    BottomPass p = refreshBottom;
    if (p == null || p.out == null) {
      throw new IllegalStateException("bottomLayerBackward before bottomLayer");
    }
    TypedLayer layer = layers[0];
    int nIn = p.tensors.totalRows(1) * layer.in;
    dx = TensorBufs.ensure(be, dx, Math.max(1, nIn));
    be.zero(dx, 0, nIn);
    layer.backward(params, grads, p.tensors, 1, p.layerInput(), dOut, dx);
    if (p.droppedCopy) {
      be.dropoutBackward(dx, 0, nIn, cfg.dropout(), p.dropKey, p.keep);
    }
    float[][] stepRows = embGrad.clone();
    inputBackward(p.tensors, 1, dx, p.features, p.featOff);
    System.arraycopy(stepRows, 0, embGrad, 0, stepRows.length);
  }

  /** Width of layer {@code l}'s output (before the activation). */
  public int layerOut(int l) {
    return layers[l].out;
  }

  private FloatTensor bottomPass(
      BottomPass p, TypedMiniBatch block, float[][] features, boolean train, long key) {
    p.tensors.upload(block);
    TypedLayer layer = layers[0];
    int nIn = p.tensors.totalRows(1) * layer.in;
    p.input = TensorBufs.ensure(be, p.input, Math.max(1, nIn));
    p.featOff = new int[cfg.numTypes()];
    p.features = uploadInput(p.tensors, 1, features, p.features, p.featOff, p.input);
    FloatTensor x = p.input;
    p.droppedCopy = train && cfg.dropout() > 0f && nIn > 0;
    if (p.droppedCopy) {
      p.dropKey = CounterRng.key(key, 0);
      p.dropped = TensorBufs.ensure(be, p.dropped, nIn);
      p.keep = TensorBufs.ensure(be, p.keep, ((long) nIn + 31) / 32);
      be.dropoutCopy(x, 0, p.dropped, 0, nIn, cfg.dropout(), p.dropKey, p.keep);
      x = p.dropped;
    }
    int nOut = p.tensors.totalRows(0) * layer.out;
    p.out = TensorBufs.ensure(be, p.out, Math.max(1, nOut));
    layer.step(train, key);
    layer.forward(params, p.tensors, 1, x, p.out);
    return p.out;
  }

  /**
   * Writes the input level {@code top} of {@code tb}'s batch into {@code out}: every type's
   * projected feature rows (uploaded into {@code feats}, type {@code t} from {@code off[t]}, which
   * this fills) or embedding rows; returns {@code feats}, grown when short.
   */
  private FloatTensor uploadInput(
      TypedBatchTensors tb,
      int top,
      float[][] features,
      FloatTensor feats,
      int[] off,
      FloatTensor out) {
    TypedMiniBatch b = tb.batch();
    int hidden = cfg.inputWidth();
    long n = 0;
    for (int t = 0; t < cfg.numTypes(); t++) {
      off[t] = (int) n;
      if (!cfg.type(t).embedded()) {
        n += (long) tb.rows(t, top) * cfg.type(t).featureDim();
      }
    }
    features = features == null ? new float[cfg.numTypes()][] : features;
    feats = TensorBufs.ensure(be, feats, Math.max(1, n));
    int[] idsOff = uploadInPlaceIds(tb, top);
    for (int t = 0; t < cfg.numTypes(); t++) {
      int rows = tb.rows(t, top);
      if (rows == 0) {
        continue;
      }
      int yo = tb.rowOffset(top, t) * hidden;
      if (cfg.type(t).embedded()) {
        float[] given = tables[t] == null ? features[t] : null; // a bottomLayerCopy's snapshot
        if (given == null) {
          if (tables[t] == null) {
            throw new IllegalArgumentException(
                "type '" + cfg.type(t).name() + "' needs " + rows + " embedding rows given");
          }
          hostRows = ensure(hostRows, (long) rows * hidden);
          tables[t].gather(b.nodes(t), 0, rows, hostRows, 0);
          given = hostRows;
        } else if (given.length < rows * hidden) {
          throw new IllegalArgumentException(
              "type '" + cfg.type(t).name() + "' needs " + rows + " embedding rows given");
        }
        be.upload(given, 0, out, yo, rows * hidden);
        continue;
      }
      int dim = cfg.type(t).featureDim();
      if (readsInPlace(t)) {
        inPlace[t].gather(inputIds, idsOff[t], rows, feats, off[t]);
      } else {
        float[] x = features[t];
        if (x == null || x.length < rows * dim) {
          throw new IllegalArgumentException(
              "type '" + cfg.type(t).name() + "' needs " + rows + " feature rows of " + dim);
        }
        be.upload(x, 0, feats, off[t], rows * dim);
      }
      be.gemm(false, false, rows, hidden, dim, 1f, feats, off[t], params, inWeight[t], 0f, out, yo);
      be.addBias(out, yo, rows, hidden, params, inBias[t]);
    }
    return feats;
  }

  /**
   * Uploads, into {@link #inputIds}, the ids of the level-{@code top} nodes of every type read in
   * place; returns where each type's ids start (null without such a type).
   */
  private int[] uploadInPlaceIds(TypedBatchTensors tb, int top) {
    if (inPlace == null) {
      return null;
    }
    int[] at = new int[cfg.numTypes()];
    long n = 0;
    for (int t = 0; t < cfg.numTypes(); t++) {
      at[t] = (int) n;
      n += readsInPlace(t) ? tb.rows(t, top) : 0;
    }
    inputIds = TensorBufs.ensure(be, inputIds, Math.max(1, n));
    for (int t = 0; t < cfg.numTypes(); t++) {
      int rows = tb.rows(t, top);
      if (readsInPlace(t) && rows > 0) {
        be.upload(tb.batch().nodes(t), 0, inputIds, at[t], rows);
      }
    }
    return at;
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
    int first = reused == null ? 0 : 1;
    for (int l = layers.length - 1; l >= first; l--) {
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
    if (reused != null) {
      reusedBottomBackward();
      inputBackward(stepBottom.tensors, 1, dy, stepBottom.features, stepBottom.featOff);
    } else {
      inputBackward(batch, top, dy, features, featOff); // dy: the input level's gradient
    }
  }

  /**
   * Layer 0's backward on the pruned block: the activation's over level {@code L-1}, then the
   * computed rows' gradient taken back (the cached rows pass none) through layer 0 and its dropout;
   * leaves the block's input gradient in {@link #dy}.
   */
  private void reusedBottomBackward() {
    int top = cfg.layers();
    int rows = batch.totalRows(top - 1);
    TypedLayer layer = layers[0];
    int w = layer.out;
    int nc = reused.fullRow().length;
    int nh = reused.hotRow().length;
    be.activateBackward(act, level[top - 1], 0, dy, 0, rows * w);
    if (keepReusedGradients) {
      dyHot = TensorBufs.ensure(be, dyHot, Math.max(1, (long) nh * w));
      dyHostHot = ensure(dyHostHot, (long) nh * w);
      if (nh > 0) {
        be.aggregate(
            Aggregation.SUM,
            reuseIdx,
            0,
            reuseIdx,
            rows + 1 + nh + rows + nc,
            nh,
            0,
            dy,
            0,
            w,
            dyHot,
            0);
        be.download(dyHot, 0, dyHostHot, 0, nh * w);
      }
    }
    dyBottom = TensorBufs.ensure(be, dyBottom, Math.max(1, (long) nc * w));
    if (nc > 0) {
      be.aggregate(
          Aggregation.SUM,
          reuseIdx,
          0,
          reuseIdx,
          rows + 1 + nh + rows,
          nc,
          0,
          dy,
          0,
          w,
          dyBottom,
          0);
    }
    BottomPass p = stepBottom;
    int nIn = p.tensors.totalRows(1) * layer.in;
    dx = TensorBufs.ensure(be, dx, Math.max(1, nIn));
    be.zero(dx, 0, nIn);
    layer.backward(params, grads, p.tensors, 1, p.layerInput(), dyBottom, dx);
    if (p.droppedCopy) {
      be.dropoutBackward(dx, 0, nIn, cfg.dropout(), p.dropKey, p.keep);
    }
    FloatTensor swap = dy;
    dy = dx;
    dx = swap;
  }

  /**
   * The input layer's backward from {@code dIn}, the gradient of input level {@code top} of {@code
   * tb}: the projections' parameter gradients, and the embedded types' row gradients kept.
   */
  private void inputBackward(
      TypedBatchTensors tb, int top, FloatTensor dIn, FloatTensor feats, int[] off) {
    int hidden = cfg.inputWidth();
    for (int t = 0; t < cfg.numTypes(); t++) {
      int rows = tb.rows(t, top);
      int go = tb.rowOffset(top, t) * hidden;
      if (cfg.type(t).embedded()) {
        embGrad[t] = new float[rows * hidden];
        if (rows > 0) {
          be.download(dIn, go, embGrad[t], 0, rows * hidden);
        }
        continue;
      }
      if (rows == 0) {
        continue;
      }
      int dim = cfg.type(t).featureDim();
      be.gemm(true, false, dim, hidden, rows, 1f, feats, off[t], dIn, go, 1f, grads, inWeight[t]);
      be.biasGrad(dIn, go, rows, hidden, grads, inBias[t]);
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
   * Type {@code t}'s nodes of the last forward's input level, whose rows {@link #embeddingGradient}
   * holds: the batch's, or those of its pruned bottom hop.
   */
  public int[] inputNodes(int t) {
    return inputTensors.batch().nodes(t);
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
        int[] ids = inputNodes(t);
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
    TensorBufs.free(be, inputIds);
    TensorBufs.free(be, dy);
    TensorBufs.free(be, dx);
    TensorBufs.free(be, dLogitsUp);
    TensorBufs.free(be, rawOut);
    TensorBufs.free(be, dRawOut);
    TensorBufs.free(be, normOut);
    TensorBufs.free(be, reuseIdx);
    TensorBufs.free(be, reuseRows);
    TensorBufs.free(be, dyBottom);
    TensorBufs.free(be, dyHot);
    if (stepBottom != null) {
      stepBottom.close();
    }
    if (refreshBottom != null) {
      refreshBottom.close();
    }
    be.free(params);
    be.free(grads);
  }
}
