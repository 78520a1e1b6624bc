package io.fanout.spark.prepare;

import java.nio.file.Path;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * The id map files a vertex stage wrote ({@link IdMapFileWriter}) as a table of {@code (dense_id,
 * id)}. Their schema is given to the reader, as the writer fixed it: Spark reads no footer to infer
 * it, which would be one more Spark job per read.
 */
final class IdMapTable {
  private IdMapTable() {}

  /** The id map under {@code dir} of a type whose ids are {@code idType} (long, int or string). */
  static Dataset<Row> read(SparkSession spark, Path dir, String idType) {
    return spark.read().schema(schema(idType)).parquet(dir.toUri().toString());
  }

  /** The Spark schema of {@link IdMapFileWriter#schema} without the partition column. */
  static StructType schema(String idType) {
    DataType id =
        switch (idType) {
          case "long" -> DataTypes.LongType;
          case "int" -> DataTypes.IntegerType;
          default -> DataTypes.StringType;
        };
    return new StructType()
        .add(IdMapFileWriter.DENSE_ID, DataTypes.IntegerType, false)
        .add(IdMapFileWriter.ID, id, false);
  }
}
