package io.fanout.train.typed;

import io.fanout.nn.Adam;
import io.fanout.nn.EmbeddingTable;
import io.fanout.nn.typed.TypedModel;
import io.fanout.nn.typed.TypedModelConfig;
import io.fanout.store.InvalidInputException;
import io.fanout.train.Checkpoint;
import io.fanout.train.EmbeddingsFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The checkpoint of a typed model, in the model dir: the dense parameters and their Adam moments in
 * a {@link Checkpoint} file ({@code checkpoint.bin}, or {@code best.bin}) whose metadata holds the
 * typed configuration under {@code typed.*} and {@code model.typed = true}, and each learned
 * embedding table with its sparse Adam state in {@code <name>.emb-<type index>.bin} ({@link
 * EmbeddingsFile}), written first, so that the checkpoint file names only complete tables.
 */
public final class TypedCheckpoint {
  /** The metadata key that marks a typed checkpoint. */
  public static final String MARK = "model.typed";

  private TypedCheckpoint() {}

  /** Whether {@code modelDir/checkpoint.bin} exists. */
  public static boolean exists(Path modelDir) {
    return Checkpoint.exists(modelDir);
  }

  /** Whether a checkpoint's metadata is a typed model's. */
  public static boolean isTyped(Map<String, String> meta) {
    return "true".equals(meta.get(MARK));
  }

  /**
   * Writes the model (dense parameters, Adam state, embedding tables) as {@code modelDir/name}.
   *
   * @param identity the run's identity ({@code identity.*}), compared on resume
   */
  public static void write(
      Path modelDir,
      String name,
      TypedModel model,
      Adam adam,
      int epochs,
      Map<String, String> identity) {
    TypedModelConfig cfg = model.config();
    for (int t = 0; t < cfg.numTypes(); t++) {
      EmbeddingTable table = model.embeddings(t);
      if (table != null) {
        EmbeddingsFile.write(EmbeddingsFile.beside(modelDir, name, t), table, epochs);
      }
    }
    Map<String, String> meta = new LinkedHashMap<>();
    meta.put(MARK, "true");
    meta.put("model.kind", cfg.kind().id());
    meta.put("model.layers", Integer.toString(cfg.layers()));
    for (Map.Entry<String, String> e : cfg.toMap().entrySet()) {
      meta.put("typed." + e.getKey(), e.getValue());
    }
    meta.putAll(identity);
    Checkpoint.write(
        modelDir,
        name,
        meta,
        epochs,
        adam.step(),
        model.params(),
        adam.firstMoment(),
        adam.secondMoment());
  }

  /** The typed configuration a checkpoint's metadata holds. */
  public static TypedModelConfig config(Map<String, String> meta, Path file) {
    if (!isTyped(meta)) {
      throw new InvalidInputException(file + " holds a one-type model, not a typed one");
    }
    Map<String, String> cfg = new TreeMap<>();
    for (Map.Entry<String, String> e : meta.entrySet()) {
      if (e.getKey().startsWith("typed.")) {
        cfg.put(e.getKey().substring(6), e.getValue());
      }
    }
    try {
      return TypedModelConfig.fromMap(cfg);
    } catch (RuntimeException e) {
      throw new InvalidInputException(file + " has a bad typed model configuration " + cfg, e);
    }
  }

  /** A checkpoint read back: the file's contents, the model's configuration. */
  public record Loaded(Checkpoint checkpoint, TypedModelConfig config, String name) {}

  /** Reads {@code modelDir/name}'s dense part and configuration. */
  public static Loaded read(Path modelDir, String name) {
    Checkpoint ck = Checkpoint.read(modelDir, name);
    return new Loaded(ck, config(ck.meta(), modelDir.resolve(name)), name);
  }

  /**
   * Loads a checkpoint into {@code model} (built from its configuration): the parameters, the
   * embedding tables and, when {@code adam} is non-null, the optimizer state.
   */
  public static void restore(Path modelDir, Loaded l, TypedModel model, Adam adam) {
    Checkpoint ck = l.checkpoint();
    if (ck.params().length != model.numParams()) {
      throw new InvalidInputException(
          modelDir.resolve(l.name())
              + " holds "
              + ck.params().length
              + " parameters, the model "
              + model.numParams());
    }
    model.loadParams(ck.params());
    if (adam != null) {
      adam.load(ck.firstMoment(), ck.secondMoment(), ck.step());
    }
    for (int t = 0; t < model.config().numTypes(); t++) {
      EmbeddingTable table = model.embeddings(t);
      if (table != null) {
        EmbeddingsFile.read(EmbeddingsFile.beside(modelDir, l.name(), t), table, ck.epochs());
      }
    }
  }

  /** Whether {@code modelDir} holds {@code name}. */
  public static boolean has(Path modelDir, String name) {
    return Files.isRegularFile(modelDir.resolve(name));
  }
}
