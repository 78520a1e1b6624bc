package io.fanout.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** Runs {@code bin/fanout} in-process through {@link FanoutCli} and captures what it prints. */
public final class CliRun {
  private CliRun() {}

  /** The exit status and everything the command wrote to standard output and error. */
  public record Result(int code, String out, String err) {
    /** Standard output parsed as one JSON document. */
    public JsonNode json() {
      try {
        return new ObjectMapper().readTree(out);
      } catch (IOException e) {
        throw new UncheckedIOException("not JSON: " + out, e);
      }
    }
  }

  /** Runs {@code bin/fanout args...} on the active (or an embedded) Spark session. */
  public static Result cli(String... args) {
    return cli(List.of(args));
  }

  /** Runs {@code bin/fanout args...} on the active (or an embedded) Spark session. */
  public static Result cli(List<String> args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        FanoutCli.run(
            args,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Result(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }
}
