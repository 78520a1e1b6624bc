package io.fanout.spark.sample;

import io.fanout.conf.FanoutConf;
import io.fanout.conf.FanoutConfigException;
import io.fanout.conf.options.SampleOptions;
import io.fanout.graph.TypedGraph;
import io.fanout.graph.TypedSchema;
import io.fanout.sample.NegativeSampler;
import io.fanout.sample.TrainEdges;
import io.fanout.sample.TypedLinkRelation;
import io.fanout.sample.TypedLinkSampler;
import io.fanout.store.InvalidInputException;
import java.io.Serializable;
import java.nio.file.Path;
import java.util.List;

/**
 * What {@code sample --task link} on a typed store samples: the store's link relation ({@code
 * prepare --link-relation}) and its reverses, by index, with the negatives of the one-type {@link
 * LinkSpec}. The seeds are the relation's training edges ({@link TrainEdges#ofRelation}; each pair
 * once when the relation is symmetric, {@code negatives.undirected()}); the seed type of the shards
 * is the relation's destination type.
 *
 * @param relation the link relation's index in the schema
 * @param reverses the indices of its reverses (their blocks also leave out the positives)
 * @param types the relation as the batch assembly takes it (endpoint types, reverses, id shift)
 */
record TypedLinkRequest(
    String relationName, int relation, int[] reverses, LinkSpec negatives, TypedLinkRelation types)
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
    if (!split.equals("train")) {
      throw new FanoutConfigException(
          "sample --task link samples the training edges; --split "
              + split
              + " is for node tasks (val and test edges are scored by evaluate)");
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
    int k = SampleJob.positive(conf, SampleOptions.NUM_NEGATIVES);
    return new TypedLinkRequest(
        names.get(0),
        r,
        reverses,
        new LinkSpec(conf.get(SampleOptions.NEGATIVES).id(), k, g.symmetric(r)),
        TypedLinkRelation.of(s, r, reverses));
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
   * The training edges of the link relation: the seeds; each pair once ({@code src < dst}) when the
   * relation is symmetric ({@code prepare --undirected}), as for an undirected one-type store.
   */
  TrainEdges trainEdges(TypedGraph g) {
    TypedSchema.Relation rel = g.schema().relation(relation);
    if (negatives.undirected()) {
      return TrainEdges.of(g.inNeighbors(relation), true);
    }
    return TrainEdges.ofRelation(g.inNeighbors(relation), rel.srcType() == rel.dstType());
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
