package io.fanout.train;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fanout.nn.ModelConfig;
import io.fanout.store.AtomicFiles;
import io.fanout.store.InvalidInputException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32C;

/**
 * A training checkpoint: {@code MODEL_DIR/checkpoint.bin}, replaced atomically (written to a
 * temporary file, forced to disk, renamed).
 *
 * <pre>
 * 0   8 bytes  magic FNOCKPT1
 * 8   int32    version 1
 * 12  int32    metadata bytes (UTF-8 JSON object of strings)
 * 16  int64    parameters n
 * 24  int64    optimizer step
 * 32  int32    epochs completed
 * 36  int32    CRC32C of everything after the header
 * 40..63       zero
 * 64           metadata, then float32[n] parameters, float32[n] Adam m, float32[n] Adam v
 * </pre>
 *
 * The metadata is a flat map of strings, written by the trainers:
 *
 * <ul>
 *   <li>{@code model.*}: the model configuration (a typed model's also under {@code typed.*}, with
 *       {@code model.typed = true});
 *   <li>{@code identity.*}: the run's identity, which a resumed run must match: graph fingerprint,
 *       training options but the epochs ({@code identity.train.*}), seed, task and what else the
 *       run was asked for (e.g. a link model's logit scale);
 *   <li>the best validation score so far and the epochs after which it came, which {@code best.bin}
 *       and {@code --early-stop} go by: one-type {@code state.best_val_accuracy} and {@code
 *       state.best_epochs} (absent before any score), typed {@code best.val_micro_f1} or {@code
 *       best.val_auc} and {@code best.epoch}.
 * </ul>
 *
 * Nothing else of the run's state is needed to continue it: the random state is (seed, epoch,
 * batch) because every random choice is counter-based.
 */
public final class Checkpoint {
  public static final String FILE = "checkpoint.bin";

  /** The checkpoint of the epoch with the best validation accuracy (written with validation). */
  public static final String BEST = "best.bin";

  private static final byte[] MAGIC = "FNOCKPT1".getBytes(StandardCharsets.US_ASCII);
  private static final int HEADER = 64;
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Map<String, String> meta;
  private final int epochs;
  private final long step;
  private final float[] params;
  private final float[] m;
  private final float[] v;
  private final String name;

  private Checkpoint(
      String name,
      Map<String, String> meta,
      int epochs,
      long step,
      float[] params,
      float[] m,
      float[] v) {
    this.name = name;
    this.meta = meta;
    this.epochs = epochs;
    this.step = step;
    this.params = params;
    this.m = m;
    this.v = v;
  }

  public static Path file(Path modelDir) {
    return modelDir.resolve(FILE);
  }

  public static boolean exists(Path modelDir) {
    return Files.isRegularFile(file(modelDir));
  }

  public Map<String, String> meta() {
    return meta;
  }

  /** The file name it was read from in its model dir ({@link #FILE} or {@link #BEST}). */
  public String name() {
    return name;
  }

  public ModelConfig modelConfig() {
    if ("true".equals(meta.get("model.typed"))) {
      throw new InvalidInputException(
          "the checkpoint holds a typed model ("
              + meta.get("model.kind")
              + "): evaluate and infer it with the typed graph store it was trained on");
    }
    Map<String, String> cfg = new TreeMap<>();
    for (Map.Entry<String, String> e : meta.entrySet()) {
      if (e.getKey().startsWith("model.")) {
        cfg.put(e.getKey().substring(6), e.getValue());
      }
    }
    try {
      return ModelConfig.fromMap(cfg);
    } catch (RuntimeException e) {
      throw new InvalidInputException("checkpoint has a bad model configuration " + cfg, e);
    }
  }

  public int epochs() {
    return epochs;
  }

  public long step() {
    return step;
  }

  public float[] params() {
    return params;
  }

  public float[] firstMoment() {
    return m;
  }

  public float[] secondMoment() {
    return v;
  }

  /** Writes {@code MODEL_DIR/checkpoint.bin} atomically. */
  public static void write(
      Path modelDir,
      Map<String, String> meta,
      int epochs,
      long step,
      float[] params,
      float[] m,
      float[] v) {
    write(modelDir, FILE, meta, epochs, step, params, m, v);
  }

  /** Writes {@code MODEL_DIR/name} atomically. */
  public static void write(
      Path modelDir,
      String name,
      Map<String, String> meta,
      int epochs,
      long step,
      float[] params,
      float[] m,
      float[] v) {
    // what the new file takes, for the message of a write that finds no room
    long bytes = HEADER + 12L * params.length + 4096;
    try {
      Files.createDirectories(modelDir);
      byte[] metaBytes = JSON.writeValueAsBytes(new TreeMap<>(meta));
      int n = params.length;
      ByteBuffer body =
          ByteBuffer.allocate(metaBytes.length + 12 * n).order(ByteOrder.LITTLE_ENDIAN);
      body.put(metaBytes);
      for (float[] a : new float[][] {params, m, v}) {
        body.asFloatBuffer().put(a, 0, n);
        body.position(body.position() + 4 * n);
      }
      body.flip();
      CRC32C crc = new CRC32C();
      crc.update(body.duplicate());
      ByteBuffer head = ByteBuffer.allocate(HEADER).order(ByteOrder.LITTLE_ENDIAN);
      head.put(MAGIC).putInt(1).putInt(metaBytes.length).putLong(n).putLong(step).putInt(epochs);
      head.putInt((int) crc.getValue());
      head.position(0).limit(HEADER);
      Path tmp = modelDir.resolve(name + ".tmp");
      try {
        try (FileChannel ch =
            FileChannel.open(
                tmp,
                StandardOpenOption.CREATE,
                StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE)) {
          while (head.hasRemaining()) {
            ch.write(head);
          }
          while (body.hasRemaining()) {
            ch.write(body);
          }
        }
        AtomicFiles.replace(tmp, modelDir.resolve(name));
      } catch (IOException | RuntimeException e) {
        // An interrupted or failed write (e.g. a cancelled task) leaves no partial file behind.
        Files.deleteIfExists(tmp);
        throw e;
      }
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot write "
              + name
              + " into "
              + modelDir
              + " (it needs about "
              + io.fanout.store.IoFailure.size(bytes)
              + " free beside the old one, which is kept)",
          e);
    }
  }

  /** Reads and verifies {@code MODEL_DIR/checkpoint.bin}. */
  public static Checkpoint read(Path modelDir) {
    return read(modelDir, FILE);
  }

  /** The checkpoint {@code evaluate} and {@code infer} use unless told otherwise. */
  public static final CheckpointPick DEFAULT_PICK = CheckpointPick.LAST;

  /**
   * The model to evaluate: {@code pick} {@code last} reads {@code checkpoint.bin} (the last
   * complete epoch), {@code best} reads {@code best.bin} (the epoch of best validation accuracy,
   * written when the run validated).
   *
   * @throws InvalidInputException when the model dir lacks that checkpoint
   */
  public static Checkpoint readForInference(Path modelDir, CheckpointPick pick) {
    return read(modelDir, inferenceFile(modelDir, pick).getFileName().toString());
  }

  /** {@link #readForInference(Path, CheckpointPick)} of the {@link #DEFAULT_PICK}. */
  public static Checkpoint readForInference(Path modelDir) {
    return readForInference(modelDir, DEFAULT_PICK);
  }

  /** The file {@link #readForInference(Path, CheckpointPick)} reads for {@code pick}. */
  public static Path inferenceFile(Path modelDir, CheckpointPick pick) {
    if (pick == CheckpointPick.LAST) {
      return file(modelDir);
    }
    Path best = modelDir.resolve(BEST);
    if (!Files.isRegularFile(best) && Files.isRegularFile(file(modelDir))) {
      throw new InvalidInputException(
          "no "
              + BEST
              + " in "
              + modelDir
              + ": the model was trained without validation shards (--val-shards), so there"
              + " is no best epoch; use checkpoint 'last'");
    }
    return best;
  }

  /** Reads and verifies {@code MODEL_DIR/name}. */
  public static Checkpoint read(Path modelDir, String name) {
    Path f = modelDir.resolve(name);
    byte[] all;
    try {
      all = Files.readAllBytes(f);
    } catch (NoSuchFileException e) {
      throw new InvalidInputException(
          "no checkpoint in " + modelDir + ": expected " + f + " written by bin/fanout train");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + f, e);
    }
    ByteBuffer bb = ByteBuffer.wrap(all).order(ByteOrder.LITTLE_ENDIAN);
    if (all.length < HEADER || !Arrays.equals(Arrays.copyOf(all, 8), MAGIC)) {
      throw new InvalidInputException(f + " is not a Fanout checkpoint: expected magic FNOCKPT1");
    }
    int version = bb.getInt(8);
    if (version != 1) {
      throw new InvalidInputException(f + " has checkpoint version " + version + ", expected 1");
    }
    int metaLen = bb.getInt(12);
    long n = bb.getLong(16);
    long step = bb.getLong(24);
    int epochs = bb.getInt(32);
    int crcStored = bb.getInt(36);
    long expected = HEADER + (long) metaLen + 12L * n;
    if (metaLen < 0 || n < 0 || all.length != expected) {
      throw new InvalidInputException(
          f
              + " is "
              + all.length
              + " bytes, expected "
              + expected
              + " from its header (truncated?)");
    }
    CRC32C crc = new CRC32C();
    crc.update(all, HEADER, all.length - HEADER);
    if ((int) crc.getValue() != crcStored) {
      throw new InvalidInputException(f + " fails its CRC32C check (corrupt file)");
    }
    Map<String, String> meta;
    try {
      meta =
          JSON.readValue(
              Arrays.copyOfRange(all, HEADER, HEADER + metaLen),
              new TypeReference<TreeMap<String, String>>() {});
    } catch (IOException e) {
      throw new InvalidInputException(f + " has unreadable metadata: " + e.getMessage(), e);
    }
    float[][] arrays = new float[3][(int) n];
    int pos = HEADER + metaLen;
    for (float[] a : arrays) {
      ByteBuffer s = ByteBuffer.wrap(all, pos, (int) (4 * n)).order(ByteOrder.LITTLE_ENDIAN);
      s.asFloatBuffer().get(a);
      pos += (int) (4 * n);
    }
    return new Checkpoint(name, meta, epochs, step, arrays[0], arrays[1], arrays[2]);
  }
}
