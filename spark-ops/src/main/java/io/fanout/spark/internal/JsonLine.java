package io.fanout.spark.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

/** Results as the one line of JSON that commands print and {@code toJson()} methods return. */
public final class JsonLine {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private JsonLine() {}

  /** {@code value} (a map, a string, a number...) as compact JSON on one line. */
  public static String of(Object value) {
    try {
      return MAPPER.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write " + value + " as JSON", e);
    }
  }
}
