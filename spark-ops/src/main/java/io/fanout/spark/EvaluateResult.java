package io.fanout.spark;

import io.fanout.train.Accuracy;
import io.fanout.train.LinkMetrics;
import io.fanout.train.typed.F1Scores;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/** What {@code evaluate} measured: correct predictions out of labeled vertices, per split. */
public final class EvaluateResult {
  private final SparkSession spark;
  private final String mode;
  private final int[] fanouts;
  private final Map<String, Accuracy> perSplit;
  private final Map<String, LinkMetrics> link;
  private final Map<String, F1Scores> f1;

  EvaluateResult(SparkSession spark, String mode, int[] fanouts, Map<String, Accuracy> perSplit) {
    this.spark = spark;
    this.mode = mode;
    this.fanouts = fanouts == null ? null : fanouts.clone();
    this.perSplit = Collections.unmodifiableMap(new LinkedHashMap<>(perSplit));
    this.link = null;
    this.f1 = null;
  }

  /**
   * The result of a typed model: accuracy, Micro- and Macro-F1 of its target type per split.
   *
   * @param fanouts the typed fanouts text of sampled inference, or null for full neighborhoods
   */
  EvaluateResult(SparkSession spark, String fanouts, Map<String, F1Scores> f1) {
    this.spark = spark;
    this.mode = fanouts == null ? "full" : "sampled";
    this.fanouts = null;
    Map<String, Accuracy> acc = new LinkedHashMap<>();
    for (Map.Entry<String, F1Scores> e : f1.entrySet()) {
      acc.put(e.getKey(), new Accuracy(e.getValue().correct(), e.getValue().rows(), 0));
    }
    this.perSplit = Collections.unmodifiableMap(acc);
    this.link = null;
    this.f1 = Collections.unmodifiableMap(new LinkedHashMap<>(f1));
  }

  /**
   * Micro-F1 on {@code split} of a typed model (NaN for a split without labelled vertices).
   *
   * @throws IllegalArgumentException for the result of a one-type model
   */
  public double microF1(String split) {
    F1Scores s = typedScores(split);
    return s.rows() == 0 ? Double.NaN : s.microF1();
  }

  /** Macro-F1 on {@code split} of a typed model; see {@link #microF1}. */
  public double macroF1(String split) {
    F1Scores s = typedScores(split);
    return s.rows() == 0 ? Double.NaN : s.macroF1();
  }

  private F1Scores typedScores(String split) {
    F1Scores s = f1 == null ? null : f1.get(split);
    if (s == null) {
      throw new IllegalArgumentException(
          f1 == null
              ? "F1 scores are measured for typed models; see accuracy(split)"
              : "no split '" + split + "'; evaluate measures " + f1.keySet());
    }
    return s;
  }

  /** The result of a link-prediction model: metrics on the store's val and test edges. */
  EvaluateResult(SparkSession spark, Map<String, LinkMetrics> link) {
    this.spark = spark;
    this.mode = "full";
    this.fanouts = null;
    this.perSplit = Map.of();
    this.link = Collections.unmodifiableMap(new LinkedHashMap<>(link));
    this.f1 = null;
  }

  /** {@code node} (accuracy per split) or {@code link} ({@link #linkMetrics}). */
  public String task() {
    return link == null ? "node" : "link";
  }

  /**
   * Link-prediction metrics of {@code split} ({@code val} or {@code test}) of a link model.
   *
   * @throws IllegalArgumentException for a node classifier's result or another split
   */
  public LinkMetrics linkMetrics(String split) {
    LinkMetrics m = link == null ? null : link.get(split);
    if (m == null) {
      throw new IllegalArgumentException(
          link == null
              ? "a node classifier's result has no link metrics; see perSplit()"
              : "no split '" + split + "'; link evaluation measures " + link.keySet());
    }
    return m;
  }

  /** {@code full} or {@code sampled}. */
  public String mode() {
    return mode;
  }

  /** The fanouts of sampled inference; null for full-neighbor inference. */
  public int[] fanouts() {
    return fanouts == null ? null : fanouts.clone();
  }

  /** Counts per split, in the order {@code train}, {@code val}, {@code test}. */
  public Map<String, Accuracy> perSplit() {
    return perSplit;
  }

  /**
   * Accuracy on {@code split} ({@code train}, {@code val} or {@code test}); NaN when the split has
   * no labeled vertex.
   */
  public double accuracy(String split) {
    Accuracy a = get(split);
    return a.total() == 0 ? Double.NaN : a.value();
  }

  /** Correctly predicted labeled vertices of {@code split}. */
  public long correct(String split) {
    return get(split).correct();
  }

  /** Labeled vertices of {@code split}. */
  public long total(String split) {
    return get(split).total();
  }

  private Accuracy get(String split) {
    Accuracy a = perSplit.get(split);
    if (a == null) {
      throw new IllegalArgumentException(
          "no split '" + split + "'; evaluate measures " + perSplit.keySet());
    }
    return a;
  }

  /**
   * One row per split: {@code split} string, {@code correct} bigint, {@code total} bigint, {@code
   * accuracy} double (null when the split has no labeled vertex), {@code mode} string ({@code full}
   * or {@code sampled}) and {@code fanouts} string (e.g. {@code "20,20"}; null for full).
   */
  public Dataset<Row> metrics() {
    StructType schema =
        new StructType()
            .add("split", DataTypes.StringType, false)
            .add("correct", DataTypes.LongType, false)
            .add("total", DataTypes.LongType, false)
            .add("accuracy", DataTypes.DoubleType, true)
            .add("mode", DataTypes.StringType, false)
            .add("fanouts", DataTypes.StringType, true);
    String f = fanouts == null ? null : Arrays.toString(fanouts).replaceAll("[\\[\\] ]", "");
    List<Row> rows = new ArrayList<>();
    for (Map.Entry<String, Accuracy> e : perSplit.entrySet()) {
      Accuracy a = e.getValue();
      rows.add(
          RowFactory.create(
              e.getKey(), a.correct(), a.total(), a.total() == 0 ? null : a.value(), mode, f));
    }
    return spark.createDataFrame(rows, schema);
  }

  /**
   * The JSON {@code bin/fanout evaluate} prints: {@code mode}, {@code fanouts} (sampled only),
   * {@code accuracy} per split (6 decimals; null for a split without labeled vertices) and {@code
   * counts} of labeled vertices per split.
   */
  public String toJson() {
    if (link != null) {
      StringBuilder sb = new StringBuilder("{\"task\":\"link\",\"mode\":\"full\"");
      for (Map.Entry<String, LinkMetrics> e : link.entrySet()) {
        sb.append(",\"").append(e.getKey()).append("\":{");
        boolean first = true;
        for (Map.Entry<String, Object> f : e.getValue().toMap().entrySet()) {
          sb.append(first ? "" : ",").append('"').append(f.getKey()).append("\":");
          sb.append(
              f.getValue() instanceof Double d
                  ? (d.isNaN() ? "null" : String.format(Locale.ROOT, "%.6f", d))
                  : f.getValue().toString());
          first = false;
        }
        sb.append('}');
      }
      return sb.append('}').toString();
    }
    StringBuilder sb = new StringBuilder("{\"mode\":\"").append(mode).append('"');
    if (fanouts != null) {
      sb.append(",\"fanouts\":").append(Arrays.toString(fanouts).replace(" ", ""));
    }
    sb.append(",\"accuracy\":{");
    boolean first = true;
    for (Map.Entry<String, Accuracy> e : perSplit.entrySet()) {
      sb.append(first ? "" : ",").append('"').append(e.getKey()).append("\":");
      sb.append(
          e.getValue().total() == 0
              ? "null"
              : String.format(Locale.ROOT, "%.6f", e.getValue().value()));
      first = false;
    }
    if (f1 != null) {
      for (String metric : new String[] {"micro_f1", "macro_f1"}) {
        sb.append("},\"").append(metric).append("\":{");
        first = true;
        for (Map.Entry<String, F1Scores> e : f1.entrySet()) {
          F1Scores v = e.getValue();
          sb.append(first ? "" : ",").append('"').append(e.getKey()).append("\":");
          sb.append(
              v.rows() == 0
                  ? "null"
                  : String.format(
                      Locale.ROOT, "%.6f", metric.equals("micro_f1") ? v.microF1() : v.macroF1()));
          first = false;
        }
      }
    }
    sb.append("},\"counts\":{");
    first = true;
    for (Map.Entry<String, Accuracy> e : perSplit.entrySet()) {
      sb.append(first ? "" : ",").append('"').append(e.getKey()).append("\":");
      sb.append(e.getValue().total());
      first = false;
    }
    return sb.append("}}").toString();
  }

  @Override
  public String toString() {
    return toJson();
  }
}
