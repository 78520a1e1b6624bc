package io.fanout.train.typed;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fanout.graph.ArrayTypedGraph;
import io.fanout.graph.TypedGraph;
import io.fanout.nn.EmbeddingMode;
import io.fanout.nn.typed.HgnSettings;
import io.fanout.nn.typed.TypedModel;
import io.fanout.nn.typed.TypedModelConfig;
import io.fanout.nn.typed.TypedModelKind;
import io.fanout.sample.TypedFanouts;
import io.fanout.sample.TypedNeighborSampler;
import io.fanout.store.StoreLayout;
import io.fanout.tensor.CpuBackend;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.MessageColumnIO;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.schema.MessageType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Accuracy probe for typed datasets in the HGB layout ({@code schema.json}, {@code vertices/},
 * {@code edges/}), not part of CI: {@code -Dfanout.typedprobe=DATASET_DIR -Dprobe.model=rgcn
 * -Dprobe.seeds=3 ...} ({@code -Dprobe.epochs}, {@code -Dprobe.batch}, {@code -Dprobe.lr} and
 * {@code -Dprobe.schedule=constant|cosine|step} set the training length and rate). Reads the
 * Parquet files straight into an {@link ArrayTypedGraph} (ids: HGB's global ids minus each type's
 * first id) and prints val and test Micro/Macro-F1 per seed and their means. {@code DATASET_DIR} is
 * a dataset folder outside the repository (hgb_acm for the documented figures); the probe runs only
 * when that property is given.
 */
@EnabledIfSystemProperty(named = "fanout.typedprobe", matches = ".+")
class TypedAccuracyProbe {
  static String p(String k, String d) {
    return System.getProperty("probe." + k, d);
  }

  private static List<Group> readAll(Path file) throws IOException {
    List<Group> out = new ArrayList<>();
    try (ParquetFileReader r = ParquetFileReader.open(new LocalInputFile(file))) {
      MessageType schema = r.getFooter().getFileMetaData().getSchema();
      MessageColumnIO io = new ColumnIOFactory().getColumnIO(schema);
      PageReadStore pages;
      while ((pages = r.readNextRowGroup()) != null) {
        RecordReader<Group> rr = io.getRecordReader(pages, new GroupRecordConverter(schema));
        for (long i = 0; i < pages.getRowCount(); i++) {
          out.add(rr.read());
        }
      }
    }
    return out;
  }

  /** The split arrays of the last {@link #load}, by type name (the graph reads them live). */
  static final java.util.Map<String, byte[]> loadedSplits = new java.util.HashMap<>();

  static TypedGraph load(Path dir) throws IOException {
    JsonNode schema = new ObjectMapper().readTree(dir.resolve("schema.json").toFile());
    String target = schema.get("target_type").asText();
    ArrayTypedGraph.Builder b = ArrayTypedGraph.builder();
    java.util.Map<String, Long> first = new java.util.HashMap<>();
    for (JsonNode t : schema.get("node_types")) {
      String name = t.get("name").asText();
      int count = t.get("count").asInt();
      int dim = t.get("feature_dim").asInt();
      long base = t.get("id_min").asLong();
      first.put(name, base);
      List<Group> rows = readAll(dir.resolve(t.get("file").asText()));
      float[] feats = dim > 0 ? new float[count * dim] : null;
      int[] labels = name.equals(target) ? new int[count] : null;
      byte[] splits = name.equals(target) ? new byte[count] : null;
      for (Group g : rows) {
        int v = (int) (g.getLong("id", 0) - base);
        if (feats != null) {
          Group list = g.getGroup("features", 0);
          int n = list.getFieldRepetitionCount("list");
          for (int i = 0; i < n; i++) {
            feats[v * dim + i] = list.getGroup("list", i).getFloat("element", 0);
          }
        }
        if (labels != null) {
          labels[v] = g.getInteger("label", 0);
          splits[v] = (byte) StoreLayout.splitCode(g.getString("split", 0));
        }
      }
      b.type(name, count, dim, feats, labels, splits);
      loadedSplits.put(name, splits);
    }
    for (JsonNode r : schema.get("relations")) {
      String src = r.get("src_type").asText();
      String dst = r.get("dst_type").asText();
      List<Group> rows = readAll(dir.resolve(r.get("file").asText()));
      int[] s = new int[rows.size()];
      int[] d = new int[rows.size()];
      for (int i = 0; i < s.length; i++) {
        s[i] = (int) (rows.get(i).getLong("src", 0) - first.get(src));
        d[i] = (int) (rows.get(i).getLong("dst", 0) - first.get(dst));
      }
      b.relation(r.get("name").asText(), src, dst, s, d);
    }
    return b.build();
  }

  /** Nearest class centroid of the raw target features: a sanity check of the data. */
  static void centroids(TypedGraph g, int target) {
    int dim = g.schema().type(target).featureDim();
    int n = (int) g.schema().type(target).count();
    int classes = g.schema().type(target).classes();
    float[] x = new float[n * dim];
    int[] all = new int[n];
    java.util.Arrays.setAll(all, i -> i);
    g.features(target).gather(all, 0, n, x, 0);
    double[][] c = new double[classes][dim];
    int[][] counts = new int[4][classes];
    for (int v = 0; v < n; v++) {
      int l = g.vertices(target).label(v);
      int s = g.vertices(target).split(v);
      if (l >= 0) {
        counts[s][l]++;
      }
      if (s == StoreLayout.SPLIT_TRAIN) {
        for (int k = 0; k < dim; k++) {
          c[l][k] += x[v * dim + k];
        }
      }
    }
    System.out.println("label counts by split " + java.util.Arrays.deepToString(counts));
    // homophily over the relation paper <- author <- paper: vote of the labelled co-author papers
    int pa = g.schema().relationIndex(p("homophily_in", "author_paper"));
    int ap = g.schema().relationIndex(p("homophily_out", "paper_author"));
    if (pa >= 0 && ap >= 0) {
      for (byte split : new byte[] {StoreLayout.SPLIT_VAL, StoreLayout.SPLIT_TEST}) {
        int agree = 0;
        int voted = 0;
        for (int v = 0; v < n; v++) {
          if (g.vertices(target).split(v) != split) {
            continue;
          }
          int[] votes = new int[classes];
          var in = g.inNeighbors(pa);
          for (long e = in.rowStart(v); e < in.rowEnd(v); e++) {
            int a = in.neighbor(e);
            var out = g.inNeighbors(ap);
            for (long f = out.rowStart(a); f < out.rowEnd(a); f++) {
              int q = out.neighbor(f);
              if (q != v && g.vertices(target).split(q) == StoreLayout.SPLIT_TRAIN) {
                votes[g.vertices(target).label(q)]++;
              }
            }
          }
          int best = 0;
          for (int cl = 1; cl < classes; cl++) {
            best = votes[cl] > votes[best] ? cl : best;
          }
          if (votes[best] > 0) {
            voted++;
            agree += best == g.vertices(target).label(v) ? 1 : 0;
          }
        }
        System.out.println("co-author vote split " + split + ": " + agree + " of " + voted);
      }
    }
    for (byte split :
        new byte[] {StoreLayout.SPLIT_TRAIN, StoreLayout.SPLIT_VAL, StoreLayout.SPLIT_TEST}) {
      F1Scores f = new F1Scores(classes, false);
      int[][] confusion = new int[classes][classes];
      for (int v = 0; v < n; v++) {
        if (g.vertices(target).split(v) != split) {
          continue;
        }
        int best = 0;
        double bestScore = -1e300;
        for (int cl = 0; cl < classes; cl++) {
          double dot = 0;
          double norm = 0;
          for (int k = 0; k < dim; k++) {
            dot += c[cl][k] * x[v * dim + k];
            norm += c[cl][k] * c[cl][k];
          }
          double score = dot / Math.sqrt(norm);
          if (score > bestScore) {
            bestScore = score;
            best = cl;
          }
        }
        f.add(g.vertices(target).label(v), best);
        confusion[g.vertices(target).label(v)][best]++;
      }
      System.out.println(
          "centroid split " + split + ": " + f + " " + java.util.Arrays.deepToString(confusion));
    }
  }

  /**
   * The cross-validation folds of {@code -Dprobe.folds=K}: the target vertices labelled train or
   * val, in id order, shuffled by {@code java.util.Random(foldSeed)} (Fisher-Yates), then stably
   * sorted by label and dealt round-robin, so every fold holds each class in proportion
   * (stratified). Returns each such vertex's fold, -1 for the others.
   */
  static int[] folds(TypedGraph g, int target, int k, long foldSeed) {
    int n = (int) g.schema().type(target).count();
    List<Integer> pool = new ArrayList<>();
    for (int v = 0; v < n; v++) {
      byte s = g.vertices(target).split(v);
      if (s == StoreLayout.SPLIT_TRAIN || s == StoreLayout.SPLIT_VAL) {
        pool.add(v);
      }
    }
    java.util.Random r = new java.util.Random(foldSeed);
    for (int i = pool.size() - 1; i > 0; i--) {
      java.util.Collections.swap(pool, i, r.nextInt(i + 1));
    }
    pool.sort(java.util.Comparator.comparingInt(v -> g.vertices(target).label(v)));
    int[] fold = new int[n];
    java.util.Arrays.fill(fold, -1);
    for (int i = 0; i < pool.size(); i++) {
      fold[pool.get(i)] = i % k;
    }
    return fold;
  }

  private static double[] meanStd(List<Double> xs) {
    double m = 0;
    for (double x : xs) {
      m += x;
    }
    m /= xs.size();
    double v = 0;
    for (double x : xs) {
      v += (x - m) * (x - m);
    }
    return new double[] {m, xs.size() > 1 ? Math.sqrt(v / (xs.size() - 1)) : 0};
  }

  @Test
  @org.junit.jupiter.api.Timeout(value = 3, unit = java.util.concurrent.TimeUnit.HOURS)
  void probe() throws IOException {
    Path dir = Path.of(System.getProperty("fanout.typedprobe"));
    TypedGraph g = load(dir);
    int target = g.schema().typeIndex(p("target", "paper"));
    if (Boolean.parseBoolean(p("debug", "false"))) {
      centroids(g, target);
    }
    int k = Integer.parseInt(p("folds", "0"));
    if (k < 2) {
      run(g, target, -1);
      return;
    }
    // -Dprobe.folds=K: K-fold cross-validation over the train+val vertices; -Dprobe.fold_list
    // runs some of the folds (to split the work over processes). Test vertices are left out.
    int[] fold = folds(g, target, k, Long.parseLong(p("fold_seed", "0")));
    byte[] orig = new byte[fold.length];
    for (int v = 0; v < fold.length; v++) {
      orig[v] = g.vertices(target).split(v);
    }
    String list = p("fold_list", "");
    List<double[]> all = new ArrayList<>();
    for (int f = 0; f < k; f++) {
      if (!list.isEmpty() && !java.util.Arrays.asList(list.split(",")).contains("" + f)) {
        continue;
      }
      byte[] splits = loadedSplits.get(g.schema().type(target).name());
      for (int v = 0; v < fold.length; v++) {
        splits[v] =
            fold[v] < 0
                ? StoreLayout.SPLIT_NONE
                : fold[v] == f ? StoreLayout.SPLIT_VAL : StoreLayout.SPLIT_TRAIN;
      }
      all.addAll(run(g, target, f));
      System.arraycopy(orig, 0, splits, 0, orig.length);
    }
    String[] names = {"last micro", "last macro", "best micro", "best macro"};
    StringBuilder sb = new StringBuilder(p("model", "rgcn") + " cv over " + all.size() + " runs:");
    for (int c = 0; c < names.length; c++) {
      List<Double> xs = new ArrayList<>();
      for (double[] r : all) {
        xs.add(r[c]);
      }
      double[] ms = meanStd(xs);
      sb.append(String.format(Locale.ROOT, " %s %.4f +- %.4f |", names[c], ms[0], ms[1]));
    }
    System.out.println(sb);
  }

  /**
   * Trains {@code -Dprobe.seeds} models on the graph's splits; in a cross-validation ({@code fold
   * >= 0}) returns per seed the last epoch's val Micro/Macro-F1 and the best val epoch's.
   */
  private static List<double[]> run(TypedGraph g, int target, int fold) throws IOException {
    // seeds: firstSeed.. for a plain run; fold f's s-th run of a cross-validation has seed
    // firstSeed + f * seeds + s, so that no two runs share one
    TypedModelKind kind = TypedModelKind.parse(p("model", "rgcn"));
    int hidden = Integer.parseInt(p("hidden", "64"));
    int layers = Integer.parseInt(p("layers", "2"));
    float dropout = Float.parseFloat(p("dropout", "0.5"));
    int bases = Integer.parseInt(p("bases", "0"));
    EmbeddingMode emb = EmbeddingMode.parse(p("embeddings", "auto"));
    String fanoutText =
        p("fanouts", "*=" + String.join(",", java.util.Collections.nCopies(layers, "-1")));
    int[][] fanouts = TypedFanouts.parse(fanoutText, g.schema());
    int seeds = Integer.parseInt(p("seeds", "3"));
    int firstSeed = Integer.parseInt(p("first_seed", "1"));
    boolean cv = fold >= 0;
    List<double[]> results = new ArrayList<>();
    double[] sum = new double[4];
    for (int s = 0; s < seeds; s++) {
      TypedTrainOptions opts =
          new TypedTrainOptions(
              Integer.parseInt(p("epochs", "50")),
              Integer.parseInt(p("batch", "256")),
              Float.parseFloat(p("lr", "0.01")),
              Float.parseFloat(p("wd", "5e-4")),
              cv ? firstSeed + fold * seeds + s : firstSeed + s,
              io.fanout.nn.LrSchedule.parse(p("schedule", "constant")));
      TypedModelConfig cfg =
          TypedModelConfig.of(g.schema(), target, kind, hidden, layers, dropout, bases, emb)
              .withFeatureNorm(io.fanout.nn.FeatureNormKind.parse(p("norm", "l2")))
              .withHgn(
                  new HgnSettings(
                      Integer.parseInt(p("heads", "8")),
                      Float.parseFloat(p("slope", "0.05")),
                      Float.parseFloat(p("attn_dropout", "0.5")),
                      Integer.parseInt(p("relation_dim", "64")),
                      Float.parseFloat(p("scale", "1")),
                      Integer.parseInt(p("input_width", "0")),
                      Float.parseFloat(
                          p("attn_residual", "" + HgnSettings.DEFAULT.attnResidual()))));
      TypedSampler sampler =
          TypedSampler.of(new TypedNeighborSampler(g, target, fanouts, opts.seed()));
      Path md = Files.createTempDirectory("typedprobe");
      try (TypedModel m = new TypedModel(cfg, new CpuBackend());
          TypedTrainer t = new TypedTrainer(m, g, sampler, opts)) {
        m.init(opts.seed());
        long t0 = System.nanoTime();
        TypedTrainer.FitResult fit =
            t.fit(md, Boolean.parseBoolean(p("verbose", "false")) ? System.out : null);
        // the best validation epoch's model
        TypedCheckpoint.restore(md, TypedCheckpoint.read(md, "best.bin"), m, null);
        F1Scores val = t.evaluate(StoreLayout.SPLIT_VAL);
        if (cv) {
          double[] r = {
            fit.lastVal().microF1(), fit.lastVal().macroF1(), val.microF1(), val.macroF1()
          };
          results.add(r);
          System.out.printf(
              Locale.ROOT,
              "fold %d seed %d (%.1fs): last epoch val micro %.4f macro %.4f | best epoch %d"
                  + " val micro %.4f macro %.4f%n",
              fold,
              opts.seed(),
              (System.nanoTime() - t0) / 1e9,
              r[0],
              r[1],
              fit.bestEpoch(),
              r[2],
              r[3]);
          continue;
        }
        F1Scores test = t.evaluate(StoreLayout.SPLIT_TEST);
        if (Boolean.parseBoolean(p("debug", "false"))) {
          System.out.println("train " + t.evaluate(StoreLayout.SPLIT_TRAIN));
          int[] ts = TypedEvaluation.seeds(g, target, StoreLayout.SPLIT_TEST);
          System.out.println(
              "test one batch " + TypedEvaluation.scores(m, g, sampler, ts, 4096, 1));
          System.out.println("test 64 " + TypedEvaluation.scores(m, g, sampler, ts, 64, 1));
          int[] vs = TypedEvaluation.seeds(g, target, StoreLayout.SPLIT_VAL);
          System.out.println("val 64 " + TypedEvaluation.scores(m, g, sampler, vs, 64, 1));
        }
        System.out.printf(
            Locale.ROOT,
            "seed %d best epoch %d (%.1fs): val micro %.4f macro %.4f | test micro %.4f macro %.4f%n",
            opts.seed(),
            fit.bestEpoch(),
            (System.nanoTime() - t0) / 1e9,
            val.microF1(),
            val.macroF1(),
            test.microF1(),
            test.macroF1());
        sum[0] += val.microF1();
        sum[1] += val.macroF1();
        sum[2] += test.microF1();
        sum[3] += test.macroF1();
      }
    }
    if (cv) {
      return results;
    }
    System.out.printf(
        Locale.ROOT,
        "%s mean of %d seeds: val micro %.4f macro %.4f | test micro %.4f macro %.4f%n",
        kind.id(),
        seeds,
        sum[0] / seeds,
        sum[1] / seeds,
        sum[2] / seeds,
        sum[3] / seeds);
    return results;
  }
}
