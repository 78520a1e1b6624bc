package io.fanout.train;

import java.util.Locale;
import java.util.Map;

/** A benchmark's flat result map as one JSON object line (doubles to 4 significant digits). */
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
      } else if (v instanceof Number) {
        sb.append(v);
      } else {
        sb.append('"').append(v).append('"');
      }
    }
    return sb.append('}').toString();
  }
}
