package io.fanout.train;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fanout.nn.Adam;
import io.fanout.nn.GnnModel;
import io.fanout.store.AtomicFiles;
import io.fanout.store.InvalidInputException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The files a fit keeps in its model dir: the checkpoint of the last epoch, the one of the best
 * validation accuracy ({@link Checkpoint#BEST}) and {@link #METRICS}, a line per epoch.
 */
public final class ModelDirFiles {
  /** Metrics file in the model directory: one JSON object per epoch. */
  public static final String METRICS = "metrics.jsonl";

  private static final ObjectMapper JSON = new ObjectMapper();

  private ModelDirFiles() {}

  /**
   * The checkpoint in {@code modelDir} to continue, or null when there is none.
   *
   * @throws InvalidInputException when there is one and {@code resume} is false
   */
  static Checkpoint toContinue(Path modelDir, boolean resume) {
    if (!Checkpoint.exists(modelDir)) {
      return null;
    }
    Checkpoint ck = Checkpoint.read(modelDir);
    if (!resume) {
      throw new InvalidInputException(
          "model dir "
              + modelDir
              + " already holds a checkpoint ("
              + ck.epochs()
              + " epochs of a "
              + ck.meta().get("model.kind")
              + " model); pass --resume to continue it or choose another --model-dir");
    }
    return ck;
  }

  /** Saves the state after {@code epochs} epochs as {@link Checkpoint#BEST}. */
  static void writeBest(Path dir, Map<String, String> meta, int epochs, GnnModel model, Adam adam) {
    writeEmbeddings(dir, Checkpoint.BEST, epochs, model);
    Checkpoint.write(
        dir,
        Checkpoint.BEST,
        meta,
        epochs,
        adam.step(),
        model.params(),
        adam.firstMoment(),
        adam.secondMoment());
  }

  /**
   * Saves the state after {@code epochs} epochs as the checkpoint to continue, recording the best
   * validation accuracy so far ({@code bestVal}, -1: none) and the epochs after which it came
   * ({@code bestEpochs}, what {@link EarlyStop} counts patience from).
   */
  static void writeLast(
      Path dir,
      Map<String, String> meta,
      double bestVal,
      int bestEpochs,
      int epochs,
      GnnModel model,
      Adam adam) {
    Map<String, String> state = new TreeMap<>(meta);
    if (bestVal >= 0) {
      state.put("state.best_val_accuracy", Double.toString(bestVal));
      state.put(EarlyStop.BEST_EPOCHS_KEY, Integer.toString(bestEpochs));
    }
    writeEmbeddings(dir, Checkpoint.FILE, epochs, model);
    Checkpoint.write(
        dir, state, epochs, adam.step(), model.params(), adam.firstMoment(), adam.secondMoment());
  }

  /**
   * Writes a learned input table (if the model has one) beside the checkpoint {@code name}, before
   * it, so that a checkpoint names only complete tables ({@link EmbeddingsFile}).
   */
  private static void writeEmbeddings(Path dir, String name, int epochs, GnnModel model) {
    if (model.embeddings() != null) {
      EmbeddingsFile.write(EmbeddingsFile.beside(dir, name, 0), model.embeddings(), epochs);
    }
  }

  /**
   * Reads the learned input table of checkpoint {@code ck} (written by {@link #writeLast} or {@link
   * #writeBest}) into {@code model}'s table; nothing when the model has none.
   */
  static void readEmbeddings(Path dir, Checkpoint ck, GnnModel model) {
    if (model.embeddings() != null) {
      EmbeddingsFile.read(
          EmbeddingsFile.beside(dir, ck.name(), 0), model.embeddings(), ck.epochs());
    }
  }

  /** The best validation accuracy {@code ck} recorded, or -1. */
  static double bestVal(Checkpoint ck) {
    String best = ck.meta().get("state.best_val_accuracy");
    return best == null ? -1 : Double.parseDouble(best);
  }

  /**
   * The epochs after which the best validation accuracy {@code ck} records came (0: none). A
   * checkpoint written before they were recorded is answered by its {@link Checkpoint#BEST}'s
   * epochs.
   */
  static int bestEpochs(Path dir, Checkpoint ck) {
    int recorded = EarlyStop.bestEpochs(ck.meta());
    if (recorded >= 0) {
      return recorded;
    }
    return bestVal(ck) < 0 || !Files.exists(dir.resolve(Checkpoint.BEST))
        ? 0
        : Checkpoint.read(dir, Checkpoint.BEST).epochs();
  }

  /**
   * Drops the metrics lines of epochs {@code epoch} and later (a resumed run writes them again).
   */
  static void keepMetricsBefore(Path dir, int epoch) {
    Path f = dir.resolve(METRICS);
    try {
      if (!Files.exists(f)) {
        return;
      }
      List<String> keep = new ArrayList<>();
      for (String line : Files.readAllLines(f, StandardCharsets.UTF_8)) {
        int at = line.indexOf("\"epoch\":");
        if (at >= 0) {
          int end = line.indexOf(',', at);
          int e = Integer.parseInt(line.substring(at + 8, end).trim());
          if (e < epoch) {
            keep.add(line);
          }
        }
      }
      Path tmp = dir.resolve(METRICS + ".tmp");
      Files.write(tmp, keep, StandardCharsets.UTF_8);
      AtomicFiles.replace(tmp, f);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot rewrite " + f, e);
    }
  }

  /**
   * Cuts a torn tail off {@link #METRICS}: trailing lines that lack their newline or do not parse
   * as a JSON object (a writer killed mid-append) are removed, so the file parses again before a
   * resumed run appends to it.
   *
   * @return the number of bytes removed (0 when the file is whole or absent)
   */
  static long cutTornMetrics(Path dir) {
    Path f = dir.resolve(METRICS);
    if (!Files.isRegularFile(f)) {
      return 0;
    }
    try {
      byte[] bytes = Files.readAllBytes(f);
      int keep = bytes.length;
      while (keep > 0) {
        int end = keep;
        boolean complete = bytes[end - 1] == '\n';
        int lineEnd = complete ? end - 1 : end;
        int start = lineEnd;
        while (start > 0 && bytes[start - 1] != '\n') {
          start--;
        }
        if (complete && parses(new String(bytes, start, lineEnd - start, StandardCharsets.UTF_8))) {
          break;
        }
        keep = start;
      }
      if (keep == bytes.length) {
        return 0;
      }
      try (FileChannel ch = FileChannel.open(f, StandardOpenOption.WRITE)) {
        ch.truncate(keep);
        ch.force(true);
      }
      return bytes.length - keep;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot repair " + f, e);
    }
  }

  private static boolean parses(String line) {
    if (line.isBlank()) {
      return false;
    }
    try {
      return JSON.readTree(line).isObject();
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * Appends epoch {@code s}'s line, with its validation accuracy {@code va} (null: none); when
   * {@link EarlyStop} ends training after it, with {@code "stopped_early":true} and the (0-based)
   * {@code best_epoch} ({@code stoppedBest}, -1: training goes on).
   */
  static void appendMetrics(Path dir, EpochStats s, Accuracy va, int stoppedBest) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("epoch", s.epoch());
    m.put("loss", s.loss());
    m.put("train_accuracy", s.accuracy());
    if (va != null) {
      m.put("val_accuracy", va.value());
      m.put("val_loss", va.meanLoss());
    }
    m.put("lr", s.lr());
    m.put("batches", s.batches());
    m.put("seeds", s.seeds());
    m.put("epoch_seconds", s.seconds());
    m.put("data_wait_seconds", s.waitSeconds());
    m.put("data_wait_fraction", s.waitFraction());
    m.put("seeds_per_second", s.seeds() / Math.max(1e-9, s.seconds()));
    if (stoppedBest >= 0) {
      m.put("stopped_early", true);
      m.put("best_epoch", stoppedBest);
    }
    StringBuilder sb = new StringBuilder("{");
    for (Map.Entry<String, Object> e : m.entrySet()) {
      if (sb.length() > 1) {
        sb.append(',');
      }
      sb.append('"').append(e.getKey()).append("\":");
      Object v = e.getValue();
      sb.append(v instanceof Double d ? String.format(Locale.ROOT, "%.6g", d) : v.toString());
    }
    sb.append("}\n");
    try {
      // Created with the first epoch's line, not before: a run that fails earlier leaves no folder.
      Files.createDirectories(dir);
      // The whole line in one append, so a reader never sees part of it.
      ByteBuffer line = ByteBuffer.wrap(sb.toString().getBytes(StandardCharsets.UTF_8));
      try (FileChannel ch =
          FileChannel.open(
              dir.resolve(METRICS), StandardOpenOption.CREATE, StandardOpenOption.APPEND)) {
        while (line.hasRemaining()) {
          ch.write(line);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot append to " + dir.resolve(METRICS), e);
    }
  }
}
