package io.fanout.spark.prepare;

import io.fanout.conf.FanoutConfigException;
import io.fanout.store.InvalidInputException;

/** Brings a Fanout error thrown in a Spark task back to the driver as itself. */
final class SparkErrors {
  private SparkErrors() {}

  private static final String MARK = InvalidInputException.class.getName() + ": ";

  /**
   * The Fanout error in {@code e}'s cause chain, or one rebuilt from its message, or else {@code e}
   * itself (checked exceptions wrapped).
   */
  static RuntimeException unwrap(Exception e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof InvalidInputException || t instanceof FanoutConfigException) {
        return (RuntimeException) t;
      }
    }
    // the cause did not survive serialization: recover the message
    String msg = String.valueOf(e.getMessage());
    int at = msg.indexOf(MARK);
    if (at >= 0) {
      String rest = msg.substring(at + MARK.length());
      int nl = rest.indexOf('\n');
      return new InvalidInputException(nl < 0 ? rest : rest.substring(0, nl), e);
    }
    return e instanceof RuntimeException
        ? (RuntimeException) e
        : new IllegalStateException(e.getMessage(), e);
  }
}
