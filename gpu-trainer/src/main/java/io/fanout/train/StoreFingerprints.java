package io.fanout.train;

import io.fanout.store.Checksums;
import io.fanout.store.StoreManifest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The identities of a store and of files that checkpoints, shards and outputs record. */
public final class StoreFingerprints {
  private StoreFingerprints() {}

  /** A store's identity for checkpoints and shards: sha-256 of its manifest's defining fields. */
  public static String of(StoreManifest m) {
    String s =
        m.inputFingerprint
            + "|"
            + m.vertices
            + "|"
            + m.edges
            + "|"
            + m.featureDim
            + "|"
            + m.classes
            + "|"
            + m.options;
    return Checksums.sha256(s).substring(0, 16);
  }

  /** The first 16 hex digits of the sha-256 of {@code file}'s bytes. */
  static String ofFile(Path file) {
    try {
      return Checksums.sha256(Files.readAllBytes(file)).substring(0, 16);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
