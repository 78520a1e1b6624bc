package io.fanout.jobs.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

/** One-line JSON for command results. */
final class Json {
  private Json() {}

  private static final ObjectMapper MAPPER = new ObjectMapper();

  static String line(Object value) {
    try {
      return MAPPER.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
