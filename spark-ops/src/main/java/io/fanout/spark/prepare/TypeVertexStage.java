package io.fanout.spark.prepare;

import static org.apache.spark.sql.functions.array;
import static org.apache.spark.sql.functions.array_compact;
import static org.apache.spark.sql.functions.array_distinct;
import static org.apache.spark.sql.functions.array_max;
import static org.apache.spark.sql.functions.array_min;
import static org.apache.spark.sql.functions.array_sort;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.element_at;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.size;
import static org.apache.spark.sql.functions.when;

import io.fanout.conf.FanoutConf;
import io.fanout.conf.options.PrepareOptions;
import io.fanout.spark.partition.VertexPartitioners;
import io.fanout.store.CsrFileWriter;
import io.fanout.store.IdRankTable;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreFeatureEncoding;
import io.fanout.store.StoreLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;

/**
 * Writes one vertex type of a typed store into its folder ({@code types/<type>/}), as the one-table
 * prepare writes its vertices: the table is normalized and validated ({@link VertexNormalization},
 * one aggregation that also counts the vertices per partition), the vertices are partitioned by
 * {@code --partitioner} (a graph partitioner's assignment of all types together: {@link
 * TypedGraphPartitioning}) and sorted by id within each partition, and each partition's task writes
 * its {@code nodes/}, {@code features/} (f32), {@code idmap/} (with a {@code part} column under a
 * graph partitioner) and, for a multi-label type, {@code labelsets/} files by type-local dense ids,
 * and for {@code --id-lookup task} its id rank table ({@link TypedIdLookup}). Features are then
 * re-encoded when the type's {@code --feature-encoding} is not f32.
 */
final class TypeVertexStage {
  /** The label set column of a multi-label type: distinct classes, ascending. */
  static final String LSET = "_lset";

  /**
   * What was written for one type.
   *
   * @param firsts type-local first vertex of each partition, the count as last element
   * @param encoding the feature rows' encoding, "" when the type has no features
   * @param classes {@code max(class) + 1}, 0 when nothing is labelled
   */
  record Result(
      int parts,
      long[] firsts,
      long[] counts,
      int dim,
      String encoding,
      int classes,
      boolean multiLabel,
      long[] splits,
      String idType) {
    long vertices() {
      return firsts[parts];
    }
  }

  private TypeVertexStage() {}

  /**
   * Writes {@code in} into {@code dir} in {@code requested} partitions (0: one per {@link
   * PrepareOptions#AUTO_VERTICES_PER_PARTITION} vertices).
   *
   * @param graph the partitions a graph partitioner gave every type ({@code --partitioner
   *     multilevel}), or null: {@code --partitioner} assigns this type's vertices by their ids
   * @param rankTables whether the vertex tasks also write the type's id rank tables for {@code
   *     --id-lookup task} (when a partition holds at most {@link IdRankTable#MAX_IDS} ids)
   */
  static Result write(
      SparkSession spark,
      FanoutConf conf,
      TypedTables.TypeTable in,
      int requested,
      TypedGraphPartitioning graph,
      boolean rankTables,
      StoreFeatureEncoding encoding,
      Path dir) {
    VertexNormalization n = VertexNormalization.of(in);
    boolean multiLabel = in.labelsColumn() != null;
    Dataset<Row> vertices = multiLabel ? withLabelSets(n, in) : n.vertices;
    int parts;
    Dataset<Row> withPart;
    if (graph != null) {
      parts = graph.parts();
      Dataset<Row> a = graph.of(in.name());
      withPart =
          vertices.join(a, col(NormalizedTables.ID).equalTo(a.col("_aid")), "left").drop("_aid");
    } else {
      parts = requested == 0 ? PrepareOptions.autoPartitions(n.rows()) : requested;
      withPart =
          vertices.withColumn(
              PrepareJob.PART,
              VertexPartitioners.of(conf.get(PrepareOptions.PARTITIONER))
                  .assign(vertices, col(NormalizedTables.ID), parts));
    }
    InputValidation.VertexStats vs =
        InputValidation.vertices(in.source(), n, withPart, parts, multiLabel ? LSET : null);
    long[] firsts = new long[parts + 1];
    for (int p = 0; p < parts; p++) {
      firsts[p + 1] = firsts[p] + vs.counts[p];
    }
    int classes = Math.toIntExact(vs.maxLabel + 1);
    if (multiLabel) {
      classes = vs.maxLabelSetClass + 1;
    }

    List<Column> cols =
        new ArrayList<>(
            List.of(
                col(PrepareJob.PART),
                col(NormalizedTables.ID),
                col(NormalizedTables.LABEL),
                col(NormalizedTables.SPLIT)));
    if (vs.dim > 0) {
      cols.add(col(NormalizedTables.FEAT));
    }
    if (multiLabel) {
      cols.add(col(LSET));
    }
    Dataset<Row> sorted =
        Routing.byPartition(
            withPart.select(cols.toArray(new Column[0])),
            PrepareJob.PART,
            parts,
            NormalizedTables.ID);
    VertexPartTask task =
        new VertexPartTask(
            dir.toAbsolutePath().toString(),
            firsts,
            vs.counts,
            vs.dim,
            in.source(),
            in.idColumn(),
            n.idTypeName(),
            graph != null,
            rankTables && largest(vs.counts) <= IdRankTable.MAX_IDS,
            multiLabel);
    List<Row> wrote = sorted.queryExecution().toRdd().toJavaRDD().mapPartitions(task).collect();
    for (Row r : wrote) {
      if (r.getLong(1) != vs.counts[r.getInt(0)]) {
        throw new IllegalStateException(
            in.source() + ": partition " + r.getInt(0) + " wrote " + r.getLong(1) + " vertices");
      }
    }
    for (int p = 0; p < parts; p++) {
      if (vs.counts[p] == 0) {
        EmptyPartitionFiles.vertexFiles(dir, p, firsts[p], vs.dim);
        if (multiLabel) {
          try (CsrFileWriter w =
              new CsrFileWriter(dir.resolve(StoreLayout.labelSetsFile(p)), p, firsts[p], 0)) {
            w.finish();
          }
        }
      }
    }
    String enc = "";
    if (vs.dim > 0) {
      enc = encoding.id();
      if (encoding != StoreFeatureEncoding.F32) {
        new FeatureQuantizer(spark)
            .quantize(dir, dir, firsts, vs.dim, FeatureQuantizer.request(conf, encoding, vs.dim));
      }
    }
    return new Result(
        parts, firsts, vs.counts, vs.dim, enc, classes, multiLabel, vs.splits, n.idTypeName());
  }

  private static long largest(long[] counts) {
    long m = 0;
    for (long c : counts) {
      m = Math.max(m, c);
    }
    return m;
  }

  /**
   * {@code n}'s table with the label set column {@link #LSET} (null or empty: unlabelled) and
   * {@code _label} its smallest class (-1 for none), with the checks of the labels column added to
   * {@code n}'s.
   */
  private static Dataset<Row> withLabelSets(VertexNormalization n, TypedTables.TypeTable in) {
    String column = in.labelsColumn();
    DataType type = NormalizedTables.type(in.table(), column);
    if (in.csv()
        || !(type instanceof ArrayType)
        || !NormalizedTables.isIntegral(((ArrayType) type).elementType())) {
      throw new InvalidInputException(
          in.source()
              + ": column '"
              + column
              + "' has type "
              + type.sql()
              + (in.csv() ? " in CSV input" : "")
              + "; expected an array of integer classes (Parquet or a DataFrame) as a"
              + " multi-label column");
    }
    Column raw = col(NormalizedTables.quote(column));
    Column wide = raw.cast("array<bigint>");
    String expected =
        "arrays of classes from 0 to " + NormalizedTables.MAX_LABEL + " (null or [] = unlabeled)";
    n.checks.add(
        new Check(
            column,
            "a null class in a label set",
            expected,
            raw.isNotNull().and(size(raw).notEqual(size(array_compact(raw))))));
    n.checks.add(new Check(column, "a class below 0", expected, array_min(wide).lt(0)));
    n.checks.add(
        new Check(
            column,
            "a class above " + NormalizedTables.MAX_LABEL,
            expected,
            array_max(wide).gt(NormalizedTables.MAX_LABEL)));
    // out-of-range classes are refused by the checks above, before anything is written
    Column set =
        when(raw.isNull(), array().cast("array<int>"))
            .otherwise(array_sort(array_distinct(array_compact(wide).cast("array<int>"))));
    return n.vertices
        .withColumn(LSET, set)
        .withColumn(
            NormalizedTables.LABEL,
            when(size(col(LSET)).gt(0), element_at(col(LSET), 1)).otherwise(lit(-1)));
  }
}
