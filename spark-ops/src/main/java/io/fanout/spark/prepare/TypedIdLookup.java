package io.fanout.spark.prepare;

import io.fanout.conf.FanoutConf;
import io.fanout.conf.FanoutConfigException;
import io.fanout.conf.options.IdLookup;
import io.fanout.conf.options.PrepareOptions;
import io.fanout.graph.PartitionerKind;
import io.fanout.store.IdRankTable;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Whether each relation of a typed {@code prepare} looks its endpoints up in the csr tasks ({@code
 * --id-lookup task}) or joins them with its types' id maps in Spark ({@code sql}); {@code auto}
 * takes the task lookup for every relation it applies to. The conditions are the one-table ones
 * ({@link TaskIdLookup}), per relation: hash partitions, int or long ids in both endpoint types,
 * unweighted edges, {@code --edge-sort task}, and none of its edges held out by {@code
 * --link-relation}. A type's vertex tasks write its id rank tables when a relation into or out of
 * it may look up; both lookups write the same bytes.
 */
final class TypedIdLookup {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(TypedPrepareJob.class);

  private final FanoutConf conf;
  private final Map<String, String> idTypes;
  private final List<TypedTables.RelationTable> relations;
  private final TypedLinkSplit split;

  /**
   * @param relations every relation the store will hold, the added reverses included
   * @param split the run's link split, or null
   */
  TypedIdLookup(
      FanoutConf conf,
      TypedTables in,
      List<TypedTables.RelationTable> relations,
      TypedLinkSplit split) {
    this.conf = conf;
    this.relations = relations;
    this.split = split;
    this.idTypes = new LinkedHashMap<>();
    for (TypedTables.TypeTable t : in.types) {
      idTypes.put(t.name(), VertexNormalization.of(t).idTypeName());
    }
  }

  /**
   * Why relation {@code r} cannot look its endpoints up in the csr tasks, or null when it can.
   *
   * @param largestSrc the most vertices of one partition of the source type, 0 when not known yet
   * @param largestDst the same for the destination type
   */
  String obstacle(TypedTables.RelationTable r, long largestSrc, long largestDst) {
    PartitionerKind partitioner = conf.get(PrepareOptions.PARTITIONER);
    if (partitioner != PartitionerKind.HASH) {
      return "--partitioner "
          + partitioner.id()
          + " (the csr tasks find an endpoint's partition by hashing its id: hash only)";
    }
    if (!PrepareJob.sortsEdgesInTask(conf)) {
      return "--edge-sort sql (Spark sorts the rows by their dense ids)";
    }
    String prefix = "relation '" + r.name() + "': ";
    for (String type : List.of(r.srcType(), r.dstType())) {
      if (idTypes.get(type).equals("string")) {
        return prefix + "string ids of type '" + type + "' (the tables hold int or long ids)";
      }
    }
    if (r.weightColumn() != null) {
      return prefix + "weighted edges (Spark sorts them with their weights)";
    }
    if (split != null && split.removedFrom().contains(r.name())) {
      return prefix + "held-out val/test edges of --link-relation (split in Spark SQL)";
    }
    long largest = Math.max(largestSrc, largestDst);
    if (largest > IdRankTable.MAX_IDS) {
      return prefix
          + "a partition of "
          + largest
          + " vertices (a table holds at most "
          + IdRankTable.MAX_IDS
          + "; raise --partitions)";
    }
    return null;
  }

  /** Fails before any work when {@code --id-lookup task} was asked for and a relation cannot. */
  void requireIfAsked() {
    if (conf.get(PrepareOptions.ID_LOOKUP) != IdLookup.TASK) {
      return;
    }
    for (TypedTables.RelationTable r : relations) {
      String why = obstacle(r, 0, 0);
      if (why != null) {
        throw refused(why);
      }
    }
  }

  /** Whether any relation may look its endpoints up: {@code --id-lookup} is not {@code sql}. */
  boolean lookingUp() {
    return conf.get(PrepareOptions.ID_LOOKUP) != IdLookup.SQL;
  }

  /** Whether the vertex tasks of {@code type} write its id rank tables. */
  boolean rankTables(String type) {
    if (!lookingUp()) {
      return false;
    }
    for (TypedTables.RelationTable r : relations) {
      if ((r.srcType().equals(type) || r.dstType().equals(type)) && obstacle(r, 0, 0) == null) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether relation {@code r} looks its endpoints up in the csr tasks; an explicit {@code task}
   * that cannot apply fails, {@code auto} logs why it joins.
   */
  boolean uses(
      TypedTables.RelationTable r, TypeVertexStage.Result src, TypeVertexStage.Result dst) {
    IdLookup mode = conf.get(PrepareOptions.ID_LOOKUP);
    if (mode == IdLookup.SQL) {
      return false;
    }
    String why = obstacle(r, largest(src), largest(dst));
    if (why == null) {
      return true;
    }
    if (mode == IdLookup.TASK) {
      throw refused(why);
    }
    LOG.info("prepare: --id-lookup auto joins the edges with the id maps: {}", why);
    return false;
  }

  /** The most vertices of one partition of a written type. */
  static long largest(TypeVertexStage.Result t) {
    long m = 0;
    for (long c : t.counts()) {
      m = Math.max(m, c);
    }
    return m;
  }

  private static FanoutConfigException refused(String why) {
    return new FanoutConfigException(
        "--id-lookup task does not apply to "
            + why
            + "; use --id-lookup auto (task where it applies) or sql");
  }
}
