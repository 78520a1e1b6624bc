package io.fanout.spark;

import io.fanout.conf.FanoutConf;
import io.fanout.conf.FanoutConfigException;
import io.fanout.conf.IfExists;
import io.fanout.conf.options.PrepareOptions;
import io.fanout.spark.prepare.GraphSpec;
import io.fanout.spark.prepare.PrepareJob;
import io.fanout.spark.prepare.PrepareOutcome;
import io.fanout.spark.prepare.TypedPrepareJob;
import io.fanout.spark.prepare.TypedRouting;
import io.fanout.spark.prepare.TypedTables;
import io.fanout.store.StoreManifest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * A configured {@code prepare}; see {@link Fanout} and {@link PrepareOptions}.
 *
 * <p>A typed (heterogeneous) graph is given type by type and relation by relation:
 *
 * <pre>{@code
 * Fanout.get(spark).prepare()
 *     .vertices("paper", papers).vertices("author", authors)
 *     .edges("writes", "author", "paper", writes)
 *     .edges("written_by", "paper", "author", writtenBy).reverseOf("written_by", "writes")
 *     .option("add-reverse", "true")
 *     .output("/data/acm.store").execute();
 * }</pre>
 *
 * or by {@code option("graph-spec", file)}. A graph of one type and one relation is prepared as
 * {@code prepare(vertices, edges)} would prepare it.
 */
public final class PrepareAction extends FanoutAction<PrepareAction, PrepareResult> {
  private final Dataset<Row> vertices;
  private final Dataset<Row> edges;
  private final List<GraphSpec.TypeSpec> types = new ArrayList<>();
  private final List<GraphSpec.RelationSpec> relations = new ArrayList<>();
  private final Map<String, Dataset<Row>> frames = new LinkedHashMap<>();

  PrepareAction(SparkSession spark, Dataset<Row> vertices, Dataset<Row> edges) {
    super(spark, "prepare", PrepareOptions.ALL);
    this.vertices = vertices;
    this.edges = edges;
  }

  /** The store directory to write ({@code output}). */
  public PrepareAction output(String path) {
    return option(PrepareOptions.OUTPUT.name(), path);
  }

  /**
   * Adds vertex type {@code type} with its table (columns as the options name them: {@code id}, and
   * optional {@code features}, {@code label} or {@code labels-column}, {@code split}). Types take
   * dense-id ranges in the order they are added. Only on {@link Fanout#prepare()}.
   */
  public PrepareAction vertices(String type, Dataset<Row> table) {
    requireTyped();
    types.add(new GraphSpec.TypeSpec(type, null, null, null, null, null, null, null));
    frames.put("type:" + type, Objects.requireNonNull(table, "table"));
    return this;
  }

  /**
   * Adds relation {@code relation}: edges ({@code src}, {@code dst} columns, as the options name
   * them) from vertices of {@code srcType} into vertices of {@code dstType}. Only on {@link
   * Fanout#prepare()}.
   */
  public PrepareAction edges(String relation, String srcType, String dstType, Dataset<Row> table) {
    requireTyped();
    relations.add(
        new GraphSpec.RelationSpec(relation, srcType, dstType, null, null, null, null, null, null));
    frames.put("relation:" + relation, Objects.requireNonNull(table, "table"));
    return this;
  }

  /**
   * Declares relation {@code relation} the reverse (the flip) of relation {@code reversed}, as the
   * spec key {@code "reverse_of"} does: {@code add-reverse} then adds no reverse for either.
   */
  public PrepareAction reverseOf(String relation, String reversed) {
    return changeRelation(relation, "reverseOf", r -> r.withReverseOf(reversed));
  }

  /**
   * Stores relation {@code relation}'s edge weights from column {@code column} of its table, as the
   * spec key {@code "weight_column"} does (for {@code sample --weighted}); the option {@code
   * weight-column} names the column of every relation whose table has it.
   */
  public PrepareAction weightColumn(String relation, String column) {
    Objects.requireNonNull(column, "column");
    return changeRelation(relation, "weightColumn", r -> r.withWeightColumn(column));
  }

  private PrepareAction changeRelation(
      String relation,
      String method,
      java.util.function.UnaryOperator<GraphSpec.RelationSpec> change) {
    for (int i = 0; i < relations.size(); i++) {
      if (relations.get(i).name().equals(relation)) {
        relations.set(i, change.apply(relations.get(i)));
        return this;
      }
    }
    throw new IllegalArgumentException(
        method + "(\"" + relation + "\", ...): no relation of that name; add it with edges(...)");
  }

  private void requireTyped() {
    if (vertices != null) {
      throw new IllegalStateException(
          "prepare(vertices, edges) takes one vertex and one edge table; for a typed graph start"
              + " from prepare() and add vertices(type, df) and edges(...)");
    }
  }

  /**
   * Runs the preparation, or skips it when the output already holds a store prepared from the same
   * inputs and options (the result's {@code skipped()} is true); {@link #mode} says what to do with
   * a store of another request there.
   *
   * @throws io.fanout.store.InvalidInputException on bad input; nothing is published then
   * @throws FanoutCancelledException when its job group or a session tag was cancelled; nothing is
   *     published then
   * @throws io.fanout.conf.FanoutConfigException on bad options
   */
  @Override
  public PrepareResult execute() {
    FanoutConf c = conf();
    IfExists m = ifExists(c, PrepareOptions.OVERWRITE, IfExists.OVERWRITE, false);
    if (m == IfExists.OVERWRITE && !c.get(PrepareOptions.OVERWRITE)) {
      option(PrepareOptions.OVERWRITE.name(), "true");
      c = conf();
    }
    String out = c.get(PrepareOptions.OUTPUT);
    PrepareResult kept =
        beforeWriting(
            m,
            out,
            "graph store",
            dir -> new PrepareResult(spark(), dir, StoreManifest.read(dir), true, 0));
    if (kept != null) {
      return kept;
    }
    FanoutConf resolved = c;
    try {
      if (types.isEmpty() && relations.isEmpty() && c.get(PrepareOptions.GRAPH_SPEC).isEmpty()) {
        refuseTypedOptions(c);
        return run(resolved, out, () -> new PrepareJob(spark(), resolved, vertices, edges).run());
      }
      TypedTables t =
          TypedRouting.tables(
              spark(),
              c,
              types.isEmpty() && relations.isEmpty() ? null : new GraphSpec(types, relations),
              frames);
      TypedRouting.OneTable one = TypedRouting.oneTable(t, c);
      if (one == null) {
        return run(resolved, out, () -> new TypedPrepareJob(spark(), resolved, t).run());
      }
      options(one.options());
      FanoutConf flat = conf();
      return run(flat, out, () -> new PrepareJob(spark(), flat, one.vertices(), one.edges()).run());
    } catch (RuntimeException e) {
      throw inCallerTerms(e);
    }
  }

  /** Options of typed graphs given to a one-table prepare are refused, naming the option. */
  private static void refuseTypedOptions(FanoutConf c) {
    if (c.get(PrepareOptions.ADD_REVERSE)) {
      throw new FanoutConfigException(
          "option add-reverse adds reverse relations to typed graphs (--graph-spec, or"
              + " vertices(type, df) and edges(...)); for one edge table use undirected");
    }
    if (!c.get(PrepareOptions.LABELS_COLUMN).isEmpty()) {
      throw new FanoutConfigException(
          "option labels-column (multi-label targets) is built for typed graphs (--graph-spec, or"
              + " vertices(type, df) and edges(...)); a one-table store takes label-column");
    }
  }

  private PrepareResult run(
      FanoutConf c, String out, java.util.function.Supplier<PrepareOutcome> job) {
    return PrepareResult.of(
        spark(),
        cancellable(
            () ->
                "nothing was published; "
                    + (out == null || out.isBlank() ? "the output" : out)
                    + " is as it was",
            job));
  }
}
