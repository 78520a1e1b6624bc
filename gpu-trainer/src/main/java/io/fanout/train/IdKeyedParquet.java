package io.fanout.train;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fanout.store.Cancellation;
import io.fanout.store.InvalidInputException;
import io.fanout.store.IoFailure;
import io.fanout.store.ParquetFooters;
import io.fanout.store.StoreLayout;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.io.MessageColumnIO;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;
import org.apache.parquet.schema.Types;

/**
 * A Parquet output with one row per vertex keyed by the original ids (predictions, embeddings): one
 * output part per store {@code idmap/} part, streamed row by row, with columns {@code id} (the
 * idmap's type), {@code dense_id}, then the output's own. Everything is written into a staging
 * directory next to the output, {@code _SUCCESS} last (JSON: {@code rows}, the output's fields and
 * {@code request}, the fingerprint of what was asked), and the directory is renamed into place.
 * Files are passed through {@link ParquetFooters#canonicalize}, so the same rows give the same
 * bytes.
 */
final class IdKeyedParquet {
  static final String SUCCESS = "_SUCCESS";
  private static final ObjectMapper JSON = new ObjectMapper();

  private IdKeyedParquet() {}

  /** The columns an output adds after {@code id} and {@code dense_id}. */
  interface Columns {
    /** Adds the columns' fields to the schema being built. */
    Types.GroupBuilder<MessageType> declare(Types.GroupBuilder<MessageType> schema);

    /** Fills the columns of the row of vertex {@code dense}. */
    void fill(Group row, int dense);
  }

  /**
   * The row count of a complete output of the same {@code request} at {@code out}, which a rerun
   * keeps; -1 when the output must be written (nothing there, or {@code overwrite}).
   *
   * @param what the output's name in messages, e.g. {@code "predictions"}
   * @throws InvalidInputException when something else is at {@code out} and {@code overwrite} is
   *     false
   */
  static long rowsToKeep(Path out, String request, boolean overwrite, String what) {
    restoreAfterCrash(out);
    if (!Files.exists(out)) {
      return -1;
    }
    JsonNode done = readSuccess(out);
    boolean same =
        done != null
            && done.path("request").asText("").equals(request)
            && done.path("rows").canConvertToLong();
    if (same && !overwrite) {
      return done.get("rows").asLong();
    }
    if (overwrite) {
      return -1;
    }
    throw new InvalidInputException(
        "output "
            + out
            + " already exists and holds "
            + (done == null ? "no complete " + what : what + " of another request")
            + "; pass --overwrite (option overwrite) to replace it");
  }

  /**
   * Undoes what a run killed between its two renames left: the old output moved aside to {@code
   * .NAME.old-*} and nothing at {@code out}. Puts the old output back, and removes other leftovers
   * of dead runs (moved-aside outputs once one is in place, staging folders).
   */
  static void restoreAfterCrash(Path out) {
    Path abs = out.toAbsolutePath();
    Path parent = abs.getParent();
    if (parent == null || !Files.isDirectory(parent)) {
      return;
    }
    String name = abs.getFileName().toString();
    List<Path> aside = new ArrayList<>();
    List<Path> staging = new ArrayList<>();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(parent, "." + name + ".*")) {
      for (Path p : ds) {
        String n = p.getFileName().toString();
        if (n.startsWith("." + name + ".old-")) {
          aside.add(p);
        } else if (n.startsWith("." + name + ".staging-")) {
          staging.add(p);
        }
      }
      aside.sort(null);
      if (!Files.exists(abs) && !aside.isEmpty()) {
        Path back = aside.remove(aside.size() - 1);
        if (Files.isRegularFile(back.resolve(SUCCESS))) {
          Files.move(back, abs, StandardCopyOption.ATOMIC_MOVE);
        } else {
          aside.add(back);
        }
      }
      for (Path p : aside) {
        deleteTree(p);
      }
      for (Path p : staging) {
        deleteTree(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot clean up after an earlier run next to " + out, e);
    }
  }

  private static JsonNode readSuccess(Path out) {
    Path f = out.resolve(SUCCESS);
    if (!Files.isRegularFile(f)) {
      return null;
    }
    try {
      JsonNode n = JSON.readTree(Files.readString(f, StandardCharsets.UTF_8));
      return n != null && n.isObject() ? n : null;
    } catch (IOException e) {
      return null;
    }
  }

  /**
   * Writes the output for every vertex of {@code store} and moves it into place, replacing what is
   * at {@code out}; returns the row count.
   *
   * @param schemaName the Parquet message name
   * @param successFields the output's own {@code _SUCCESS} fields, e.g. {@code "classes":7}
   */
  static long write(
      Path store,
      int vertices,
      String schemaName,
      Columns columns,
      String successFields,
      String request,
      Path out) {
    List<Path> parts = idmapParts(store);
    return publish(
        out,
        schemaName,
        successFields,
        request,
        staging -> {
          long rows = 0;
          for (Path part : parts) {
            rows +=
                writePart(part, schemaName, columns, vertices, staging.resolve(part.getFileName()));
          }
          if (rows != vertices) {
            throw new InvalidInputException(
                "idmap of " + store + " maps " + rows + " vertices; the store has " + vertices);
          }
          return rows;
        });
  }

  /** The bytes of the files under {@code dir}; 0 when it cannot be read. */
  private static long treeBytes(Path dir) {
    try (java.util.stream.Stream<Path> files = Files.walk(dir)) {
      return files.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
    } catch (IOException | java.io.UncheckedIOException e) {
      return 0;
    }
  }

  /** What an output writes into its staging directory. */
  interface Body {
    /** Writes the output's files into {@code staging}; returns the row count. */
    long write(Path staging) throws IOException;
  }

  /**
   * Runs {@code body} in a staging directory next to {@code out}, writes {@code _SUCCESS} last and
   * renames the directory into place (what was at {@code out} is moved aside, then removed);
   * nothing is left behind when {@code body} fails. Returns the row count.
   *
   * @param what the output's name in messages
   * @param successFields the output's own {@code _SUCCESS} fields, e.g. {@code "classes":7}
   */
  static long publish(Path out, String what, String successFields, String request, Body body) {
    Path abs = out.toAbsolutePath();
    Path staging = abs.resolveSibling("." + abs.getFileName() + ".staging-" + UUID.randomUUID());
    try {
      Files.createDirectories(staging);
      long rows = body.write(staging);
      Files.writeString(
          staging.resolve(SUCCESS),
          String.format(
              Locale.ROOT, "{\"rows\":%d,%s,\"request\":\"%s\"}%n", rows, successFields, request),
          StandardCharsets.UTF_8);
      Cancellation.check("publishing " + what + " " + out);
      Path old = null;
      if (Files.exists(abs)) {
        old = abs.resolveSibling("." + abs.getFileName() + ".old-" + UUID.randomUUID());
        Files.move(abs, old, StandardCopyOption.ATOMIC_MOVE);
      }
      Files.move(staging, abs, StandardCopyOption.ATOMIC_MOVE);
      if (old != null) {
        deleteTree(old);
      }
      return rows;
    } catch (IOException e) {
      long written = treeBytes(staging);
      Throwable io = IoFailure.find(e);
      boolean full = io != null && IoFailure.of(io) == IoFailure.NO_SPACE;
      deleteTree(staging);
      throw new UncheckedIOException(
          "cannot write "
              + what
              + " to "
              + out
              + (full
                  ? " (it needs more than the "
                      + IoFailure.size(written)
                      + " written when the disk filled, which were removed; what was at "
                      + out
                      + " is kept)"
                  : ""),
          e);
    } catch (RuntimeException e) {
      deleteTree(staging);
      throw e;
    }
  }

  /**
   * A Snappy Parquet writer of {@code schema} to a new local file; pass the file through {@link
   * ParquetFooters#canonicalize} once closed.
   */
  static ParquetWriter<Group> openWriter(Path file, MessageType schema) throws IOException {
    return ExampleParquetWriter.builder(new LocalOutputFile(file))
        .withConf(new PlainParquetConfiguration())
        .withType(schema)
        .withCompressionCodec(CompressionCodecName.SNAPPY)
        .withWriteMode(ParquetFileWriter.Mode.CREATE)
        .build();
  }

  private static List<Path> idmapParts(Path store) {
    Path idmap = store.resolve(StoreLayout.IDMAP_DIR);
    List<Path> parts = new ArrayList<>();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(idmap, "part-*.parquet")) {
      for (Path p : ds) {
        parts.add(p);
      }
    } catch (IOException e) {
      throw new InvalidInputException(
          "graph store " + store + " has no readable idmap/ directory: " + e.getMessage(), e);
    }
    parts.sort(null);
    if (parts.isEmpty()) {
      throw new InvalidInputException("graph store " + store + " has no idmap/part-*.parquet");
    }
    return parts;
  }

  private static long writePart(Path in, String schemaName, Columns columns, int n, Path outFile)
      throws IOException {
    long rows = 0;
    try (ParquetFileReader r = ParquetFileReader.open(new LocalInputFile(in))) {
      MessageType schema = r.getFooter().getFileMetaData().getSchema();
      if (!schema.containsField("dense_id") || !schema.containsField("id")) {
        throw new InvalidInputException(
            in + " lacks column dense_id or id; expected the idmap schema (dense_id int, id)");
      }
      Type idType = schema.getType("id");
      if (!idType.isPrimitive()) {
        throw new InvalidInputException(in + " has a nested id column; expected a primitive id");
      }
      PrimitiveType idp = idType.asPrimitiveType();
      MessageType outSchema =
          columns
              .declare(
                  Types.buildMessage()
                      .addField(idp)
                      .required(PrimitiveTypeName.INT32)
                      .named("dense_id"))
              .named(schemaName);
      SimpleGroupFactory f = new SimpleGroupFactory(outSchema);
      MessageColumnIO io = new ColumnIOFactory().getColumnIO(schema);
      try (ParquetWriter<Group> w = openWriter(outFile, outSchema)) {
        PageReadStore pages;
        while ((pages = r.readNextRowGroup()) != null) {
          RecordReader<Group> rr = io.getRecordReader(pages, new GroupRecordConverter(schema));
          for (long i = 0; i < pages.getRowCount(); i++) {
            Group g = rr.read();
            int dense = g.getInteger("dense_id", 0);
            if (dense < 0 || dense >= n) {
              throw new InvalidInputException(
                  in + " row " + rows + " has dense_id " + dense + "; expected 0.." + (n - 1));
            }
            Group o = f.newGroup();
            if (g.getFieldRepetitionCount("id") > 0) {
              copyId(g, o, idp.getPrimitiveTypeName());
            }
            o.add("dense_id", dense);
            columns.fill(o, dense);
            w.write(o);
            rows++;
          }
        }
      }
    }
    ParquetFooters.canonicalize(outFile);
    return rows;
  }

  private static void copyId(Group g, Group o, PrimitiveTypeName t) {
    switch (t) {
      case INT64:
        o.add("id", g.getLong("id", 0));
        break;
      case INT32:
        o.add("id", g.getInteger("id", 0));
        break;
      case DOUBLE:
        o.add("id", g.getDouble("id", 0));
        break;
      case FLOAT:
        o.add("id", g.getFloat("id", 0));
        break;
      case BOOLEAN:
        o.add("id", g.getBoolean("id", 0));
        break;
      default:
        o.add("id", g.getBinary("id", 0));
        break;
    }
  }

  static void deleteTree(Path p) {
    if (!Files.exists(p)) {
      return;
    }
    try (Stream<Path> s = Files.walk(p)) {
      for (Path q : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(q);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot remove " + p, e);
    }
  }
}
