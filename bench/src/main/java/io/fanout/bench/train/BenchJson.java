package io.fanout.bench.train;

import java.util.Locale;
import java.util.Map;

/**
 * A benchmark's flat result map as one JSON object line: doubles to 4 significant digits, arrays
 * ({@code double[]} and lists of numbers, such as per-step losses) with 6.
 */
public final class BenchJson {
  private BenchJson() {}

  public static String line(Map<String, Object> r) {
    StringBuilder sb = new StringBuilder("{");
    for (Map.Entry<String, Object> e : r.entrySet()) {
      if (sb.length() > 1) {
        sb.append(',');
      }
      sb.append('"').append(e.getKey()).append("\":");
      Object v = e.getValue();
      if (v instanceof Double d) {
        sb.append(String.format(Locale.ROOT, "%.4g", d));
      } else if (v instanceof double[] a) {
        sb.append('[');
        for (int i = 0; i < a.length; i++) {
          sb.append(i == 0 ? "" : ",").append(String.format(Locale.ROOT, "%.6g", a[i]));
        }
        sb.append(']');
      } else if (v instanceof java.util.List<?> list) {
        sb.append('[');
        for (int i = 0; i < list.size(); i++) {
          Object x = list.get(i);
          sb.append(i == 0 ? "" : ",")
              .append(
                  x instanceof Double d
                      ? String.format(Locale.ROOT, "%.6g", d)
                      : String.valueOf(x));
        }
        sb.append(']');
      } else if (v instanceof Number) {
        sb.append(v);
      } else {
        sb.append('"').append(v).append('"');
      }
    }
    return sb.append('}').toString();
  }
}
