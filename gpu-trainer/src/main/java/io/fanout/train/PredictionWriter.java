package io.fanout.train;

import io.fanout.store.InvalidInputException;
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
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;
import org.apache.parquet.schema.Types;

/**
 * Writes predictions as Parquet keyed by the original vertex ids: one output part per store {@code
 * idmap/} part, streamed row by row (columns {@code id} with the idmap's type, {@code dense_id},
 * {@code prediction}, {@code probabilities array<float>}). Everything is written into a staging
 * directory next to the output, which is renamed into place at the end; an existing output is
 * replaced only with {@code overwrite}.
 */
final class PredictionWriter {
  private PredictionWriter() {}

  static long write(Path store, float[] probs, int classes, Path out, boolean overwrite) {
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
    if (Files.exists(out) && !overwrite) {
      throw new InvalidInputException(
          "output " + out + " already exists; pass --overwrite to replace it");
    }
    Path abs = out.toAbsolutePath();
    Path staging = abs.resolveSibling("." + abs.getFileName() + ".staging-" + UUID.randomUUID());
    long rows = 0;
    int n = probs.length / classes;
    try {
      Files.createDirectories(staging);
      for (Path part : parts) {
        rows += writePart(part, probs, classes, n, staging.resolve(part.getFileName()));
      }
      if (rows != n) {
        throw new InvalidInputException(
            "idmap of " + store + " maps " + rows + " vertices; the store has " + n);
      }
      Files.writeString(
          staging.resolve("_SUCCESS"),
          String.format(Locale.ROOT, "{\"rows\":%d,\"classes\":%d}%n", rows, classes),
          StandardCharsets.UTF_8);
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
      deleteTree(staging);
      throw new UncheckedIOException("cannot write predictions to " + out, e);
    } catch (RuntimeException e) {
      deleteTree(staging);
      throw e;
    }
  }

  private static long writePart(Path in, float[] probs, int classes, int n, Path outFile)
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
          Types.buildMessage()
              .addField(idp)
              .required(PrimitiveTypeName.INT32)
              .named("dense_id")
              .required(PrimitiveTypeName.INT32)
              .named("prediction")
              .requiredGroup()
              .as(LogicalTypeAnnotation.listType())
              .repeatedGroup()
              .required(PrimitiveTypeName.FLOAT)
              .named("element")
              .named("list")
              .named("probabilities")
              .named("fanout_prediction");
      SimpleGroupFactory f = new SimpleGroupFactory(outSchema);
      MessageColumnIO io = new ColumnIOFactory().getColumnIO(schema);
      try (ParquetWriter<Group> w =
          ExampleParquetWriter.builder(new LocalOutputFile(outFile))
              .withConf(new PlainParquetConfiguration())
              .withType(outSchema)
              .withCompressionCodec(CompressionCodecName.SNAPPY)
              .withWriteMode(ParquetFileWriter.Mode.CREATE)
              .build()) {
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
            int best = 0;
            for (int c = 1; c < classes; c++) {
              if (probs[dense * classes + c] > probs[dense * classes + best]) {
                best = c;
              }
            }
            o.add("prediction", best);
            Group list = o.addGroup("probabilities");
            for (int c = 0; c < classes; c++) {
              list.addGroup("list").append("element", probs[dense * classes + c]);
            }
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
