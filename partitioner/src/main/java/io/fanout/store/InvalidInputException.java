package io.fanout.store;

/**
 * Input that Fanout refuses. The message names the file (or table), the column or row, shows a
 * sample offending value and says what was expected. Nothing is published when one is thrown.
 */
public class InvalidInputException extends RuntimeException {
  public InvalidInputException(String message) {
    super(message);
  }

  public InvalidInputException(String message, Throwable cause) {
    super(message, cause);
  }
}
