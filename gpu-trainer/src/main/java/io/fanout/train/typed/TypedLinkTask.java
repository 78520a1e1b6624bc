package io.fanout.train.typed;

import io.fanout.graph.TypedSchema;
import io.fanout.nn.DecoderKind;
import io.fanout.sample.LinkPairs;
import io.fanout.sample.TypedMiniBatch;
import io.fanout.store.InvalidInputException;
import io.fanout.train.LinkStep;
import java.util.Map;

/**
 * Link prediction on one relation {@code R = S -> D} of a typed graph: a typed model's output rows
 * are its vertices' embeddings, and a pair {@code (u of S, v of D)} is scored as the one-type
 * {@link LinkStep} scores pairs, {@link LinkStep#LOGIT_SCALE} times the cosine of the two rows.
 * This class joins the two types' rows into the one embedding matrix {@link LinkStep} reads: type
 * {@code S}'s rows first, then type {@code D}'s (the same rows when {@code S = D}).
 *
 * @param relationName the link relation
 * @param relation its index in the schema
 * @param srcType its source type
 * @param dstType its destination type
 * @param decoder the pair scorer: the scaled cosine ({@link DecoderKind#DOT}) or an {@link
 *     io.fanout.nn.MlpDecoder} over the raw output rows
 */
public record TypedLinkTask(
    String relationName, int relation, int srcType, int dstType, DecoderKind decoder) {
  /** Checkpoint metadata key naming the link relation of a typed link model. */
  public static final String RELATION_KEY = "identity.link_relation";

  /** Checkpoint metadata key naming a typed link model's decoder. */
  public static final String DECODER_KEY = "identity.decoder";

  /** The task of link relation {@code name} of {@code schema}, scored by the dot decoder. */
  public static TypedLinkTask of(TypedSchema schema, String name) {
    return of(schema, name, DecoderKind.DOT);
  }

  /** The task of link relation {@code name} of {@code schema}, scored by {@code decoder}. */
  public static TypedLinkTask of(TypedSchema schema, String name, DecoderKind decoder) {
    int r = schema.relationIndex(name);
    if (r < 0) {
      throw new InvalidInputException(
          "link relation '" + name + "' is not a relation of the graph");
    }
    TypedSchema.Relation rel = schema.relation(r);
    return new TypedLinkTask(name, r, rel.srcType(), rel.dstType(), decoder);
  }

  /** The link task a checkpoint's metadata records, or null for a node-classification model. */
  public static TypedLinkTask of(TypedSchema schema, Map<String, String> meta) {
    String name = meta.get(RELATION_KEY);
    return name == null
        ? null
        : of(schema, name, DecoderKind.parse(meta.getOrDefault(DECODER_KEY, DecoderKind.DOT.id())));
  }

  /** What a link model's checkpoint records besides the run's identity. */
  public Map<String, String> identity() {
    return Map.of(
        "identity." + LinkStep.TASK,
        "link",
        RELATION_KEY,
        relationName,
        "identity." + LinkStep.LOGIT_SCALE_KEY,
        Float.toString(LinkStep.LOGIT_SCALE),
        DECODER_KEY,
        decoder.id());
  }

  public boolean oneType() {
    return srcType == dstType;
  }

  /** Where type {@code D}'s rows start in the joined matrix of {@code srcRows} source rows. */
  public int dstRowOffset(int srcRows) {
    return oneType() ? 0 : srcRows;
  }

  /** Type {@code S}'s rows, then type {@code D}'s unless they are the same type. */
  public float[] joined(float[] srcRows, float[] dstRows) {
    if (oneType()) {
      return srcRows;
    }
    float[] out = java.util.Arrays.copyOf(srcRows, srcRows.length + dstRows.length);
    System.arraycopy(dstRows, 0, out, srcRows.length, dstRows.length);
    return out;
  }

  /** A batch's pairs as rows of the {@link #joined} matrix of its seeds. */
  public LinkPairs joinedPairs(TypedMiniBatch b) {
    LinkPairs p = b.pairs();
    if (p == null) {
      throw new IllegalArgumentException("batch " + b.batch() + " carries no link pairs");
    }
    int off = dstRowOffset(b.layerSize(srcType, 0));
    if (off == 0) {
      return p;
    }
    int[] dst = p.dst().clone();
    for (int i = 0; i < dst.length; i++) {
      dst[i] += off;
    }
    return new LinkPairs(p.src(), dst, p.label());
  }
}
