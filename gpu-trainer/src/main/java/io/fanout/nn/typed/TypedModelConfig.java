package io.fanout.nn.typed;

import io.fanout.graph.TypedSchema;
import io.fanout.nn.EmbeddingMode;
import io.fanout.nn.FeatureNormKind;
import io.fanout.store.InvalidInputException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.IntPredicate;

/**
 * Architecture of a relation-aware model of a typed graph: everything needed to rebuild it from a
 * checkpoint ({@link #toMap}, {@link #fromMap}).
 *
 * @param kind the architecture
 * @param types the vertex types in schema order: each one's input (features or a learned table)
 * @param relations the relations in schema order (the relation index of batches)
 * @param target the type whose vertices are classified (the seed type)
 * @param hidden hidden width, also the width of learned embeddings and of input projections
 * @param classes output classes
 * @param layers layers = sampled hops
 * @param dropout dropout probability on every layer's input
 * @param bases R-GCN basis count (0: one full weight per relation)
 * @param multiLabel sigmoid per class (label sets) instead of a softmax
 * @param featureNorm row normalization of every type's input features (on the host, as gathered)
 * @param hgn the attention settings of {@link TypedModelKind#HGN}
 */
public record TypedModelConfig(
    TypedModelKind kind,
    List<TypeInput> types,
    List<RelationSpec> relations,
    int target,
    int hidden,
    int classes,
    int layers,
    float dropout,
    int bases,
    boolean multiLabel,
    FeatureNormKind featureNorm,
    HgnSettings hgn) {

  /**
   * One vertex type's input.
   *
   * @param featureDim the stored features' width (0: none)
   * @param embedded whether the type reads a learned embedding table instead of its features
   * @param count vertices of the type (the rows of its table)
   */
  public record TypeInput(String name, int featureDim, boolean embedded, long count) {}

  /** One relation: edges from {@code src} type vertices into {@code dst} type vertices. */
  public record RelationSpec(String name, int src, int dst) {}

  public TypedModelConfig {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(featureNorm, "featureNorm");
    Objects.requireNonNull(hgn, "hgn");
    types = List.copyOf(types);
    relations = List.copyOf(relations);
    if (types.isEmpty() || target < 0 || target >= types.size()) {
      throw new IllegalArgumentException("the target type is not one of the model's types");
    }
    if (hidden <= 0 || classes <= 0 || layers <= 0 || (!multiLabel && classes < 2)) {
      throw new IllegalArgumentException(
          "need hidden, layers > 0 and classes > 1 (> 0 multi-label), got hidden="
              + hidden
              + " classes="
              + classes
              + " layers="
              + layers);
    }
    if (!(dropout >= 0f && dropout < 1f)) {
      throw new IllegalArgumentException("dropout must be in [0, 1), got " + dropout);
    }
    if (bases < 0 || (bases > 0 && kind != TypedModelKind.RGCN)) {
      throw new IllegalArgumentException("--bases needs --model rgcn and a count >= 1");
    }
    for (TypeInput t : types) {
      if (!t.embedded() && t.featureDim() <= 0) {
        throw new InvalidInputException(
            "vertex type '"
                + t.name()
                + "' has no features: give it a learned embedding (--learned-embeddings auto)");
      }
    }
    for (RelationSpec r : relations) {
      if (r.src() < 0 || r.src() >= types.size() || r.dst() < 0 || r.dst() >= types.size()) {
        throw new IllegalArgumentException("relation '" + r.name() + "' names an unknown type");
      }
    }
  }

  /**
   * The model of {@code schema} classifying {@code target}: its types' inputs follow {@code
   * embeddings}; classes and multi-label come from the target type. Features are used as stored and
   * {@code hgn} takes {@link HgnSettings#DEFAULT} ({@link #withFeatureNorm}, {@link #withHgn}).
   */
  public static TypedModelConfig of(
      TypedSchema schema,
      int target,
      TypedModelKind kind,
      int hidden,
      int layers,
      float dropout,
      int bases,
      EmbeddingMode embeddings) {
    List<TypeInput> types = inputs(schema, embeddings, t -> t == target);
    List<RelationSpec> rels = relations(schema);
    TypedSchema.VertexType tt = schema.type(target);
    if (!tt.labelled()) {
      throw new InvalidInputException("target type '" + tt.name() + "' has no labels");
    }
    return new TypedModelConfig(
        kind,
        types,
        rels,
        target,
        hidden,
        tt.classes(),
        layers,
        dropout,
        bases,
        tt.multiLabel(),
        FeatureNormKind.NONE,
        HgnSettings.DEFAULT);
  }

  /**
   * The link-prediction model of relation {@code relation} of {@code schema}: its output rows are
   * {@code hidden}-wide embeddings of every type ({@code classes = hidden}, single-label), and its
   * target is the relation's destination type (the seed type of link shards). Otherwise as {@link
   * #of}.
   */
  public static TypedModelConfig ofLink(
      TypedSchema schema,
      int relation,
      TypedModelKind kind,
      int hidden,
      int layers,
      float dropout,
      int bases,
      EmbeddingMode embeddings) {
    TypedSchema.Relation rel = schema.relation(relation);
    List<TypeInput> types =
        inputs(schema, embeddings, t -> t == rel.srcType() || t == rel.dstType());
    List<RelationSpec> rels = relations(schema);
    return new TypedModelConfig(
        kind,
        types,
        rels,
        rel.dstType(),
        hidden,
        hidden,
        layers,
        dropout,
        bases,
        false,
        FeatureNormKind.NONE,
        HgnSettings.DEFAULT);
  }

  /**
   * Each type's input: its features, or a learned table as {@code embeddings} says; {@code
   * taskType} tells the task's own types (by index) from the others.
   */
  private static List<TypeInput> inputs(
      TypedSchema schema, EmbeddingMode embeddings, IntPredicate taskType) {
    List<TypeInput> types = new ArrayList<>();
    for (int i = 0; i < schema.types().size(); i++) {
      TypedSchema.VertexType t = schema.type(i);
      boolean embedded = embeddings.embeds(t.featureDim(), taskType.test(i));
      if (!embedded && t.featureDim() == 0) {
        throw new InvalidInputException(
            "vertex type '"
                + t.name()
                + "' has no features and --learned-embeddings "
                + embeddings.id()
                + " reads its features: pass --learned-embeddings auto to give it a learned"
                + " embedding table");
      }
      types.add(new TypeInput(t.name(), t.featureDim(), embedded, t.count()));
    }
    return types;
  }

  private static List<RelationSpec> relations(TypedSchema schema) {
    List<RelationSpec> rels = new ArrayList<>();
    for (TypedSchema.Relation r : schema.relations()) {
      rels.add(new RelationSpec(r.name(), r.srcType(), r.dstType()));
    }
    return rels;
  }

  /** This configuration with its input features normalized by {@code norm}. */
  public TypedModelConfig withFeatureNorm(FeatureNormKind norm) {
    return new TypedModelConfig(
        kind,
        types,
        relations,
        target,
        hidden,
        classes,
        layers,
        dropout,
        bases,
        multiLabel,
        norm,
        hgn);
  }

  /** This configuration with the attention settings {@code s} (used by {@code hgn} only). */
  public TypedModelConfig withHgn(HgnSettings s) {
    return new TypedModelConfig(
        kind,
        types,
        relations,
        target,
        hidden,
        classes,
        layers,
        dropout,
        bases,
        multiLabel,
        featureNorm,
        s);
  }

  /** Heads of layer {@code l}: {@code hgn}'s hidden layers have several, every other layer one. */
  public int layerHeads(int l) {
    return kind == TypedModelKind.HGN && l < layers - 1 ? hgn.heads() : 1;
  }

  public int numTypes() {
    return types.size();
  }

  public int numRelations() {
    return relations.size();
  }

  public TypeInput type(int t) {
    return types.get(t);
  }

  public RelationSpec relation(int r) {
    return relations.get(r);
  }

  /** The relations into {@code dst}, in relation order. */
  public int[] relationsInto(int dst) {
    return java.util.stream.IntStream.range(0, relations.size())
        .filter(r -> relations.get(r).dst() == dst)
        .toArray();
  }

  /**
   * Input width of layer {@code l}: the output of the layer before, {@code hidden} for the first.
   */
  public int layerIn(int l) {
    return l == 0 ? inputWidth() : layerOut(l - 1);
  }

  /**
   * Width of the input level: the per-type input projections and learned embedding rows; {@code
   * hidden} but for an {@code hgn} model with {@link HgnSettings#inputWidth} set.
   */
  public int inputWidth() {
    return kind == TypedModelKind.HGN && hgn.inputWidth() > 0 ? hgn.inputWidth() : hidden;
  }

  /**
   * Output width of layer {@code l}: the classes for the last, else {@code hidden} ({@code hgn}:
   * {@code heads x hidden}, its heads concatenated).
   */
  public int layerOut(int l) {
    return l == layers - 1 ? classes : layerHeads(l) * hidden;
  }

  /** The configuration as string pairs, for checkpoints. */
  public Map<String, String> toMap() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("kind", kind.id());
    StringBuilder ts = new StringBuilder();
    for (TypeInput t : types) {
      ts.append(ts.length() == 0 ? "" : ",")
          .append(t.name())
          .append(':')
          .append(t.featureDim())
          .append(':')
          .append(t.embedded() ? "embedded" : "features")
          .append(':')
          .append(t.count());
    }
    m.put("types", ts.toString());
    StringBuilder rs = new StringBuilder();
    for (RelationSpec r : relations) {
      rs.append(rs.length() == 0 ? "" : ",")
          .append(r.name())
          .append(':')
          .append(r.src())
          .append(':')
          .append(r.dst());
    }
    m.put("relations", rs.toString());
    m.put("target", Integer.toString(target));
    m.put("hidden", Integer.toString(hidden));
    m.put("classes", Integer.toString(classes));
    m.put("layers", Integer.toString(layers));
    m.put("dropout", Float.toString(dropout));
    m.put("bases", Integer.toString(bases));
    m.put("multi_label", Boolean.toString(multiLabel));
    m.put("feature_norm", featureNorm.id());
    if (kind == TypedModelKind.HGN) {
      m.put("hgn.heads", Integer.toString(hgn.heads()));
      m.put("hgn.slope", Float.toString(hgn.slope()));
      m.put("hgn.attn_dropout", Float.toString(hgn.attnDropout()));
      m.put("hgn.relation_dim", Integer.toString(hgn.relationDim()));
      m.put("hgn.output_scale", Float.toString(hgn.outputScale()));
      if (hgn.inputWidth() > 0) {
        m.put("hgn.input_width", Integer.toString(hgn.inputWidth()));
      }
      if (hgn.attnResidual() > 0f) {
        m.put("hgn.attn_residual", Float.toString(hgn.attnResidual()));
      }
    }
    return m;
  }

  /** The configuration {@link #toMap} wrote (type and relation names hold no ':' or ','). */
  public static TypedModelConfig fromMap(Map<String, String> m) {
    List<TypeInput> types = new ArrayList<>();
    for (String s : m.get("types").split(",")) {
      String[] f = s.split(":");
      types.add(
          new TypeInput(
              f[0], Integer.parseInt(f[1]), f[2].equals("embedded"), Long.parseLong(f[3])));
    }
    List<RelationSpec> rels = new ArrayList<>();
    String rel = m.get("relations");
    if (!rel.isEmpty()) {
      for (String s : rel.split(",")) {
        String[] f = s.split(":");
        rels.add(new RelationSpec(f[0], Integer.parseInt(f[1]), Integer.parseInt(f[2])));
      }
    }
    return new TypedModelConfig(
        TypedModelKind.parse(m.get("kind")),
        types,
        rels,
        Integer.parseInt(m.get("target")),
        Integer.parseInt(m.get("hidden")),
        Integer.parseInt(m.get("classes")),
        Integer.parseInt(m.get("layers")),
        Float.parseFloat(m.get("dropout")),
        Integer.parseInt(m.get("bases")),
        Boolean.parseBoolean(m.get("multi_label")),
        FeatureNormKind.parse(m.getOrDefault("feature_norm", FeatureNormKind.NONE.id())),
        m.containsKey("hgn.heads")
            ? new HgnSettings(
                Integer.parseInt(m.get("hgn.heads")),
                Float.parseFloat(m.get("hgn.slope")),
                Float.parseFloat(m.get("hgn.attn_dropout")),
                Integer.parseInt(m.get("hgn.relation_dim")),
                Float.parseFloat(m.getOrDefault("hgn.output_scale", "1.0")),
                Integer.parseInt(m.getOrDefault("hgn.input_width", "0")),
                Float.parseFloat(m.getOrDefault("hgn.attn_residual", "0")))
            : HgnSettings.DEFAULT);
  }
}
