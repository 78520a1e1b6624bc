package io.fanout.spark.partition;

import static org.apache.spark.sql.functions.floor;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.min;
import static org.apache.spark.sql.functions.pmod;

import io.fanout.conf.FanoutConfigException;
import java.math.BigInteger;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;

/**
 * Equal-width ranges of numeric ids between their minimum and maximum: vertices with nearby ids
 * share a partition (good when ids carry locality, e.g. crawl order). One aggregation job finds the
 * bounds. String ids are refused.
 */
final class RangePartitioner implements VertexPartitioner {
  @Override
  public String name() {
    return "range";
  }

  @Override
  public Column assign(Dataset<Row> vertices, Column id, int numPartitions) {
    DataType t = vertices.select(id).schema().fields()[0].dataType();
    if (!t.equals(DataTypes.LongType) && !t.equals(DataTypes.IntegerType)) {
      throw new FanoutConfigException(
          "--partitioner range needs numeric (int or long) vertex ids, the ids are "
              + t.sql()
              + "; use --partitioner hash");
    }
    Row b = vertices.agg(min(id.cast("long")), max(id.cast("long"))).first();
    if (b.isNullAt(0)) {
      return lit(0);
    }
    long lo = b.getLong(0);
    long hi = b.getLong(1);
    // width = ceil((hi - lo + 1) / P), computed without overflow
    BigInteger span = BigInteger.valueOf(hi).subtract(BigInteger.valueOf(lo)).add(BigInteger.ONE);
    BigInteger p = BigInteger.valueOf(numPartitions);
    long width = span.add(p).subtract(BigInteger.ONE).divide(p).longValueExact();
    Column offset = id.cast("decimal(20,0)").minus(lit(lo));
    // offset - offset mod width is a multiple of width, so the decimal quotient is exact: a plain
    // offset / width may round up to the next integer when the span is near 2^64
    Column w = lit(width);
    return floor(offset.minus(pmod(offset, w)).divide(w)).cast("int");
  }
}
