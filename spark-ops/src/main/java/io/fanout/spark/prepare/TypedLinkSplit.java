package io.fanout.spark.prepare;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

import io.fanout.conf.FanoutConf;
import io.fanout.conf.FanoutConfigException;
import io.fanout.conf.options.PrepareOptions;
import io.fanout.store.StoreManifest;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * The edge split of a typed store for link prediction on one relation ({@code prepare --task link
 * --link-relation R}): {@link EdgeSplitPlan} draws each edge of {@code R}'s split from its original
 * endpoint ids, so an edge {@code u -> v} of {@code R} and its flip {@code v -> u} in a reverse of
 * {@code R} (one declared {@code reverse_of} it, or of which it is declared the reverse, or the
 * {@code rev_R} of {@code --add-reverse}) get the same split. Val and test edges leave the CSR of
 * {@code R} and of every reverse, so no held-out edge reaches message passing through the reverse.
 * The held-out edges of {@code R} are written to {@code relations/R/edgesplit/} with negatives
 * whose source is the positive's (of {@code R}'s source type) and whose destination is drawn from
 * {@code R}'s destination type, type-local dense ids.
 *
 * <p>With {@code --edge-split-column C} the split of an edge of {@code R} is its value in column
 * {@code C} of {@code R}'s table ({@link EdgeSplitColumn}); an edge of a reverse takes the split of
 * its forward edge: it leaves the reverse when its flip is a held-out edge of {@code R} (a Spark
 * SQL anti join of the reverse's edges against {@code R}'s held-out pairs, endpoints swapped), so
 * {@code R} must be written before its reverses ({@link #writeOrder}).
 *
 * <p>A relation {@code R} that {@code --undirected} makes symmetric (within one type) is split as
 * the one-table {@code --undirected} graph is: the draw hashes the pair's endpoints in ascending
 * order, so both directions of a pair share a split (and a split column must agree on them); the
 * held-out edges leave before the reversed copies are made, so neither direction of a val or test
 * pair reaches the CSR; the held-out files hold each pair once, smaller dense id first, and the
 * negatives avoid the pairs of either direction.
 */
final class TypedLinkSplit {
  final EdgeSplitPlan plan;
  final TypedTables.RelationTable relation;
  private final List<String> reverses;

  /** Whether {@code --undirected} makes the split relation symmetric (it joins one type). */
  final boolean symmetric;

  private Dataset<Row> heldOutInput;

  private TypedLinkSplit(
      EdgeSplitPlan plan,
      TypedTables.RelationTable relation,
      List<String> reverses,
      boolean symmetric) {
    this.plan = plan;
    this.relation = relation;
    this.reverses = reverses;
    this.symmetric = symmetric;
  }

  /**
   * The split {@code --link-relation} asks for over the store's relations (the reverses {@code
   * --add-reverse} added included), or null without the option.
   */
  static TypedLinkSplit of(FanoutConf conf, List<TypedTables.RelationTable> relations) {
    String name = conf.get(PrepareOptions.LINK_RELATION).trim();
    if (name.isEmpty()) {
      return null;
    }
    TypedTables.RelationTable rel = null;
    List<String> names = new ArrayList<>();
    for (TypedTables.RelationTable r : relations) {
      names.add(r.name());
      if (r.name().equals(name)) {
        rel = r;
      }
    }
    if (rel == null) {
      throw new FanoutConfigException(
          "option 'link-relation' of prepare is '"
              + name
              + "', not a relation of the graph; expected one of "
              + names);
    }
    List<String> reverses = new ArrayList<>();
    for (TypedTables.RelationTable r : relations) {
      boolean flip = name.equals(r.reverseOf()) || r.name().equals(rel.reverseOf());
      if (flip && !r.name().equals(name)) {
        reverses.add(r.name());
      }
    }
    EdgeSplitPlan plan = EdgeSplitPlan.of(conf, true);
    boolean symmetric = ReverseRelations.symmetric(conf.get(PrepareOptions.UNDIRECTED), rel);
    return new TypedLinkSplit(plan, rel, List.copyOf(reverses), symmetric);
  }

  /**
   * The column of the split relation's table that gives each edge's split ({@code
   * --edge-split-column}), or null when {@code r} is another relation or the splits are drawn.
   */
  String splitColumn(TypedTables.RelationTable r) {
    return r.name().equals(relation.name()) ? plan.column : null;
  }

  /**
   * The order to write {@code relations} in, as indexes into it: the split relation first (its
   * held-out edges decide which edges its reverses keep), then the others in their order.
   */
  List<Integer> writeOrder(List<TypedTables.RelationTable> relations) {
    List<Integer> out = new ArrayList<>();
    for (int i = 0; i < relations.size(); i++) {
      if (relations.get(i).name().equals(relation.name())) {
        out.add(0, i);
      } else {
        out.add(i);
      }
    }
    return out;
  }

  /** The relations whose held-out edges leave the CSR: the split relation, then its reverses. */
  List<String> removedFrom() {
    List<String> out = new ArrayList<>();
    out.add(relation.name());
    out.addAll(reverses);
    return out;
  }

  /**
   * The edges of relation {@code r} that its CSR keeps: for the split relation and its reverses,
   * the training edges (and the dangling ones, left to be reported); every edge otherwise.
   *
   * @param joined the relation's edges with original ids {@code _src}/{@code _dst} and dense ids
   *     {@code _sd}/{@code _dd} (null where dangling)
   */
  Dataset<Row> keptEdges(TypedTables.RelationTable r, Dataset<Row> joined) {
    boolean forward = r.name().equals(relation.name());
    if (!forward && !reverses.contains(r.name())) {
      return joined;
    }
    Column src = col(NormalizedTables.SRC);
    Column dst = col(NormalizedTables.DST);
    Column dangling = col("_sd").isNull().or(col("_dd").isNull());
    if (!forward && plan.column != null) {
      return withoutHeldOutFlips(r, joined);
    }
    Column loop = r.srcType().equals(r.dstType()) ? col("_sd").equalTo(col("_dd")) : lit(false);
    // a reverse edge v -> u is the split relation's u -> v: hash it the same way round (a
    // symmetric relation hashes both directions of a pair alike)
    Dataset<Row> coded =
        joined.withColumn(
            EdgeSplitPlan.CODE,
            forward ? plan.code(src, dst, loop, symmetric) : plan.code(dst, src, loop, symmetric));
    if (forward) {
      heldOutInput = coded.where(dangling.unary_$bang());
    }
    return coded
        .where(dangling.or(col(EdgeSplitPlan.CODE).equalTo(lit(EdgeSplitPlan.TRAIN))))
        .drop(EdgeSplitPlan.CODE);
  }

  /** The edges of reverse {@code r} whose flip is not a held-out edge of the split relation. */
  private Dataset<Row> withoutHeldOutFlips(TypedTables.RelationTable r, Dataset<Row> joined) {
    if (heldOutInput == null) {
      throw new IllegalStateException(
          "relation '"
              + relation.name()
              + "' must be written before its reverse '"
              + r.name()
              + "'");
    }
    Dataset<Row> heldOut =
        heldOutInput.where(col(EdgeSplitPlan.CODE).notEqual(lit(EdgeSplitPlan.TRAIN)));
    Dataset<Row> flips =
        heldOut.select(col(NormalizedTables.DST).as("_hs"), col(NormalizedTables.SRC).as("_hd"));
    if (symmetric) {
      // the symmetric split relation holds each held-out pair both ways round
      flips =
          flips.union(
              heldOut.select(
                  col(NormalizedTables.SRC).as("_hs"), col(NormalizedTables.DST).as("_hd")));
    }
    flips = flips.distinct();
    return joined.join(
        flips,
        col(NormalizedTables.SRC)
            .equalTo(col("_hs"))
            .and(col(NormalizedTables.DST).equalTo(col("_hd"))),
        "left_anti");
  }

  /**
   * Writes the held-out edges of the split relation into its folder {@code relationDir} and returns
   * the manifest entry; {@link #keptEdges} must have been given the relation's edges.
   *
   * @param dstIds the id map {@code (id, dense_id)} of the relation's destination type
   */
  StoreManifest.EdgeSplit write(
      Dataset<Row> dstIds,
      TypeVertexStage.Result src,
      TypeVertexStage.Result dst,
      Path relationDir) {
    if (heldOutInput == null) {
      throw new IllegalStateException("relation '" + relation.name() + "' was not written yet");
    }
    boolean sameType = relation.srcType().equals(relation.dstType());
    StoreManifest.EdgeSplit m =
        plan.write(
            heldOutInput,
            new EdgeSplitPlan.Destinations(dstIds, dst.vertices(), sameType),
            symmetric,
            relationDir,
            src.idType(),
            dst.idType());
    m.relation = relation.name();
    m.removedFrom = removedFrom();
    return m;
  }
}
