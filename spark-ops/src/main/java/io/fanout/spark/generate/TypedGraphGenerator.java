package io.fanout.spark.generate;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fanout.spark.internal.JobSteps;
import io.fanout.tensor.CounterRng;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * A synthetic typed graph of the shape a {@link TypedGraphLayout} gives: per vertex type a table
 * {@code (id bigint[, label int, split string][, features array<float>])}, per relation a table
 * {@code (src bigint, dst bigint)} of type-local ids, and the graph description {@code prepare
 * --graph-spec} reads.
 *
 * <p>Vertex {@code i} of every type belongs to community {@code i mod classes}; on the target type
 * that community is its label, with the splits of {@link GraphGenerator} (60/20/20). A type with
 * features has its community's centroid (a Gaussian vector per type and community) plus unit
 * Gaussian noise, except the target type, whose features are noise only: its labels are readable
 * only through relations, one hop from a type with features or two hops through a type without.
 * Relation {@code r = S > D} draws each edge as an R-MAT cell over {@code ceil(log2 max(|S|,|D|))}
 * levels folded into {@code [0,|S|) x [0,|D|)} (skewed degrees on both ends); with probability the
 * relation's homophily its source is moved to the nearest vertex of the destination's community. A
 * relation of homophily 0 carries no label signal, so a layout can hold a decoy path of the same
 * shape as the informative one.
 *
 * <p>Every value is a counter-based hash of (seed, type or relation index, row, position): the
 * tables depend only on the layout, classes and seed, not on the number of tasks. Rows are
 * generated on executors from {@code spark.range}; the driver holds only the layout.
 */
public final class TypedGraphGenerator implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The graph description written beside the tables. */
  public static final String GRAPH_SPEC = "graph.json";

  private final TypedGraphLayout layout;
  private final int classes;
  private final long seed;

  public TypedGraphGenerator(TypedGraphLayout layout, int classes, long seed) {
    if (classes < 1) {
      throw new IllegalArgumentException("need classes >= 1");
    }
    this.layout = layout;
    this.classes = classes;
    this.seed = seed;
  }

  public TypedGraphLayout layout() {
    return layout;
  }

  /** The table schema of type {@code t}. */
  public StructType schema(int t) {
    StructType s = new StructType().add("id", DataTypes.LongType, false);
    if (t == layout.target()) {
      s = s.add("label", DataTypes.IntegerType, false).add("split", DataTypes.StringType, false);
    }
    if (layout.types().get(t).dim() > 0) {
      s = s.add("features", DataTypes.createArrayType(DataTypes.FloatType, false), false);
    }
    return s;
  }

  public Dataset<Row> vertices(SparkSession spark, int tasks, int t) {
    return spark
        .range(0, layout.types().get(t).count(), 1, tasks)
        .mapPartitions(
            (MapPartitionsFunction<Long, Row>) it -> GraphGenerator.map(it, i -> vertex(t, i)),
            Encoders.row(schema(t)));
  }

  public Dataset<Row> edges(SparkSession spark, int tasks, int r) {
    return spark
        .range(0, layout.relations().get(r).edges(), 1, tasks)
        .mapPartitions(
            (MapPartitionsFunction<Long, Row>)
                it ->
                    GraphGenerator.map(
                        it,
                        k -> {
                          long[] e = edge(r, k);
                          return RowFactory.create(e[0], e[1]);
                        }),
            Encoders.row(GraphGenerator.EDGES));
  }

  /** The folder of type {@code t}'s table, relative to the output folder. */
  public String vertexPath(int t) {
    return "vertices/" + layout.types().get(t).name() + ".parquet";
  }

  /** The folder of relation {@code r}'s table, relative to the output folder. */
  public String edgePath(int r) {
    return "edges/" + layout.relations().get(r).name() + ".parquet";
  }

  /**
   * Writes every type's table, then every relation's (each with {@code tasks} tasks and files,
   * replacing what the paths hold), then {@link #GRAPH_SPEC}; the jobs are labelled {@code "fanout
   * generate: write vertices <type> (i/n)"} and {@code "... write edges <relation> (i/n)"}.
   */
  public void write(SparkSession spark, int tasks, Path dir) {
    List<String> steps = new ArrayList<>();
    layout.types().forEach(t -> steps.add("write vertices " + t.name()));
    layout.relations().forEach(r -> steps.add("write edges " + r.name()));
    JobSteps js = new JobSteps(spark, "generate", steps);
    for (int t = 0; t < layout.types().size(); t++) {
      String path = dir.resolve(vertexPath(t)).toUri().toString();
      int type = t;
      js.run(
          steps.get(t),
          () -> vertices(spark, tasks, type).write().mode(SaveMode.Overwrite).parquet(path));
    }
    for (int r = 0; r < layout.relations().size(); r++) {
      String path = dir.resolve(edgePath(r)).toUri().toString();
      int rel = r;
      js.run(
          steps.get(layout.types().size() + r),
          () -> edges(spark, tasks, rel).write().mode(SaveMode.Overwrite).parquet(path));
    }
    try {
      Files.writeString(dir.resolve(GRAPH_SPEC), graphSpec(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(dir.resolve(GRAPH_SPEC) + ": cannot write", e);
    }
  }

  /** The graph description of the written tables, paths relative to its folder. */
  public String graphSpec() {
    ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    ObjectNode root = json.createObjectNode();
    root.put("format", "parquet");
    ArrayNode types = root.putArray("types");
    for (int t = 0; t < layout.types().size(); t++) {
      ObjectNode n = types.addObject();
      n.put("name", layout.types().get(t).name());
      n.put("path", vertexPath(t));
      if (t == layout.target()) {
        n.put("label_column", "label");
        n.put("split_column", "split");
      }
    }
    ArrayNode relations = root.putArray("relations");
    for (int r = 0; r < layout.relations().size(); r++) {
      TypedGraphLayout.Relation rel = layout.relations().get(r);
      ObjectNode n = relations.addObject();
      n.put("name", rel.name());
      n.put("src_type", layout.types().get(rel.src()).name());
      n.put("dst_type", layout.types().get(rel.dst()).name());
      n.put("path", edgePath(r));
    }
    try {
      return json.writeValueAsString(root) + "\n";
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The community (the target type's label) of vertex {@code i} of any type. */
  public int community(long i) {
    return (int) (i % classes);
  }

  /** Row {@code i} of type {@code t}'s table. */
  Row vertex(int t, long i) {
    TypedGraphLayout.Type type = layout.types().get(t);
    long typeKey = CounterRng.key(seed, 100, t, 0);
    int c = community(i);
    List<Object> row = new ArrayList<>(4);
    row.add(i);
    if (t == layout.target()) {
      double u = GraphGenerator.uniform(CounterRng.key(typeKey, 3, i, 0), 0);
      row.add(c);
      row.add(GraphGenerator.SPLITS[u < 0.6 ? 0 : u < 0.8 ? 1 : 2]);
    }
    if (type.dim() > 0) {
      float[] x = new float[type.dim()];
      long noiseKey = CounterRng.key(typeKey, 1, i, 0);
      long centroidKey = CounterRng.key(typeKey, 2, c, 0);
      boolean signal = t != layout.target();
      for (int j = 0; j < x.length; j++) {
        double centroid = signal ? GraphGenerator.gaussian(centroidKey, j) : 0;
        x[j] = (float) (centroid + GraphGenerator.gaussian(noiseKey, j));
      }
      row.add(scala.collection.immutable.ArraySeq.unsafeWrapArray(x));
    }
    return RowFactory.create(row.toArray());
  }

  /** Edge row {@code k} of relation {@code r}: {@code {src, dst}}, type-local ids. */
  public long[] edge(int r, long k) {
    TypedGraphLayout.Relation rel = layout.relations().get(r);
    long ns = layout.types().get(rel.src()).count();
    long nd = layout.types().get(rel.dst()).count();
    int levels = GraphGenerator.levels(Math.max(ns, nd));
    long key = CounterRng.key(seed, 200, r, k);
    long[] cell = GraphGenerator.rmat(key, levels);
    long src = cell[0] % ns;
    long dst = cell[1] % nd;
    if (GraphGenerator.uniform(key, levels) < rel.homophily()) {
      long moved = src - src % classes + community(dst);
      src = moved < ns ? moved : Math.max(0, moved - classes);
    }
    cell[0] = src;
    cell[1] = dst;
    return cell;
  }
}
