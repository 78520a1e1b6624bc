package io.fanout.spark.sample;

import io.fanout.conf.FanoutConf;
import io.fanout.conf.FanoutConfigException;
import io.fanout.conf.options.SampleOptions;
import io.fanout.graph.HeldOutCount;
import io.fanout.graph.HeldOutEdges;
import io.fanout.graph.TypedGraph;
import io.fanout.graph.TypedSchema;
import io.fanout.sample.NegativeSampler;
import io.fanout.sample.TrainEdges;
import io.fanout.sample.TypedHeldOutLinkSampler;
import io.fanout.sample.TypedLinkRelation;
import io.fanout.sample.TypedLinkSampler;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreLayout;
import java.io.Serializable;
import java.nio.file.Path;
import java.util.List;

/**
 * What {@code sample --task link} on a typed store samples: the store's link relation ({@code
 * prepare --link-relation}) and its reverses, by index, with the negatives of the one-type {@link
 * LinkSpec}. With {@code --split train} the seeds are the relation's training edges ({@link
 * TrainEdges#ofRelation}; each pair once when the relation is symmetric, {@code
 * negatives.undirected()}); with {@code --split val|test} they are the split's held-out pairs, with
 * the negatives {@code prepare} stored ({@link TypedHeldOutLinkSampler}; in the partitioned mode
 * {@link TypedPartitionedLinkSeeds}). The seed type of the shards is the relation's destination
 * type.
 *
 * @param relation the link relation's index in the schema
 * @param reverses the indices of its reverses (their blocks also leave out the positives)
 * @param negatives the negatives drawn per training edge; null for held-out pairs
 * @param types the relation as the batch assembly takes it (endpoint types, reverses, id shift)
 * @param heldOut {@code val} or {@code test}: the held-out pairs of that split; null: the training
 *     edges
 */
record TypedLinkRequest(
    String relationName,
    int relation,
    int[] reverses,
    LinkSpec negatives,
    TypedLinkRelation types,
    String heldOut)
    implements Serializable {

  /** The request {@code conf} makes of the typed store {@code g} at {@code graph}. */
  static TypedLinkRequest of(FanoutConf conf, TypedGraph g, Path graph, String split) {
    List<String> names = g.linkRelations();
    if (names.isEmpty()) {
      throw new InvalidInputException(
          graph
              + ": the typed store has no link relation, needed for sample --task link; rerun"
              + " prepare with --task link --link-relation NAME");
    }
    String heldOut = null;
    if (!split.equals("train")) {
      if (!StoreLayout.HELD_OUT_SPLITS.contains(split)) {
        throw new FanoutConfigException(
            "sample --task link samples the training edges (--split train) or the held-out pairs"
                + " of --split val|test; --split "
                + split
                + " is for node tasks");
      }
      heldOut = split;
      String why =
          "--split "
              + split
              + " samples the store's held-out pairs with the negatives prepare stored"
              + " (--edge-split-negatives); leave it out";
      conf.refuseIgnored(SampleOptions.NEGATIVES, why);
      conf.refuseIgnored(SampleOptions.NUM_NEGATIVES, why);
    }
    TypedSchema s = g.schema();
    int r = index(s, names.get(0), graph);
    int[] reverses = new int[names.size() - 1];
    for (int i = 1; i < names.size(); i++) {
      reverses[i - 1] = index(s, names.get(i), graph);
    }
    String seedType = conf.get(SampleOptions.SEED_TYPE);
    String dst = s.type(s.relation(r).dstType()).name();
    if (seedType != null && !seedType.isBlank() && !seedType.trim().equals(dst)) {
      throw new FanoutConfigException(
          "sample --task link seeds the endpoints of relation '"
              + names.get(0)
              + "' (seed type '"
              + dst
              + "'); leave --seed-type out");
    }
    TypedLinkRelation types = TypedLinkRelation.of(s, r, reverses);
    if (heldOut != null) {
      return new TypedLinkRequest(names.get(0), r, reverses, null, types, heldOut);
    }
    int k = SampleJob.positive(conf, SampleOptions.NUM_NEGATIVES);
    return new TypedLinkRequest(
        names.get(0),
        r,
        reverses,
        new LinkSpec(conf.get(SampleOptions.NEGATIVES).id(), k, g.symmetric(r)),
        types,
        null);
  }

  private static int index(TypedSchema s, String name, Path graph) {
    int r = s.relationIndex(name);
    if (r < 0) {
      throw new InvalidInputException(
          graph + ": the link relation '" + name + "' is not a relation of the store");
    }
    return r;
  }

  /** The seed type: the link relation's destination type. */
  int seedType(TypedSchema s) {
    return s.relation(relation).dstType();
  }

  /**
   * The held-out pairs of the request's split (its seeds), refused with one line when {@code g}
   * keeps none.
   */
  HeldOutEdges heldOutPairs(TypedGraph g, Path graph) {
    HeldOutEdges h = g.heldOutEdges(heldOut);
    if (h == null) {
      throw noHeldOutPairs(graph);
    }
    return h;
  }

  /**
   * How many held-out pairs of the request's split there are and how many are positives, without
   * reading them ({@link TypedGraph#heldOutCount}): what the driver plans by. Refused as {@link
   * #heldOutPairs}.
   */
  HeldOutCount heldOutCount(TypedGraph g, Path graph) {
    HeldOutCount c = g.heldOutCount(heldOut);
    if (c == null) {
      throw noHeldOutPairs(graph);
    }
    return c;
  }

  private InvalidInputException noHeldOutPairs(Path graph) {
    return new InvalidInputException(
        graph
            + ": the typed graph keeps no held-out pairs of relation '"
            + relationName
            + "' for sample --task link --split "
            + heldOut
            + "; prepare it with --task link --link-relation "
            + relationName);
  }

  /** The sampler of the request's held-out batches over {@code g}. */
  TypedHeldOutLinkSampler heldOutSampler(
      TypedGraph g, HeldOutEdges pairs, int[][] fanouts, long seed, boolean weighted) {
    return new TypedHeldOutLinkSampler(g, relation, reverses, fanouts, seed, pairs, weighted);
  }

  /**
   * The training edges of the link relation: the seeds; each pair once ({@code src < dst}) when the
   * relation is symmetric ({@code prepare --undirected}), as for an undirected one-type store.
   */
  TrainEdges trainEdges(TypedGraph g) {
    TypedSchema.Relation rel = g.schema().relation(relation);
    if (negatives != null && negatives.undirected()) {
      return TrainEdges.of(g.inNeighbors(relation), true);
    }
    return TrainEdges.ofRelation(g.inNeighbors(relation), rel.srcType() == rel.dstType());
  }

  /**
   * How many {@link #trainEdges} there are, counted without building them: what the driver plans
   * by.
   */
  long trainEdgeCount(TypedGraph g) {
    TypedSchema.Relation rel = g.schema().relation(relation);
    if (negatives != null && negatives.undirected()) {
      return TrainEdges.count(g.inNeighbors(relation), true);
    }
    return TrainEdges.countOfRelation(g.inNeighbors(relation), rel.srcType() == rel.dstType());
  }

  /**
   * The sampler of the request's batches over {@code g} ({@code weighted}: {@code sample
   * --weighted}).
   */
  TypedLinkSampler sampler(
      TypedGraph g, TrainEdges edges, int[][] fanouts, long seed, boolean weighted) {
    return new TypedLinkSampler(
        g,
        relation,
        reverses,
        fanouts,
        seed,
        edges,
        NegativeSampler.of(negatives.negatives(), g.inNeighbors(relation)),
        negatives.perPositive(),
        weighted);
  }
}
