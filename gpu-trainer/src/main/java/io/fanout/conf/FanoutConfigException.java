package io.fanout.conf;

/** A bad or missing option. The message names the option and says what was expected. */
public final class FanoutConfigException extends IllegalArgumentException {
  public FanoutConfigException(String message) {
    super(message);
  }

  public FanoutConfigException(String message, Throwable cause) {
    super(message, cause);
  }
}
