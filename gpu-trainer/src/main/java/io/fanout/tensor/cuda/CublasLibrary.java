package io.fanout.tensor.cuda;

import com.sun.jna.NativeLibrary;
import java.util.List;
import java.util.function.Function;

/**
 * Opens the machine's cuBLAS, whatever its CUDA major version, and binds {@link CublasNative} to it
 * once per process. The library is the one named by {@code -Dfanout.cublas.library} (a path or a
 * file name) when that is set, else the first of {@link #SONAMES} that the dynamic loader finds and
 * that exports every {@link CublasNative#SYMBOLS symbol}. {@code -Dfanout.cublas.library=none}
 * turns cuBLAS off, so that products run on the own SGEMM kernel.
 */
final class CublasLibrary {
  static final String LIBRARY_PROPERTY = "fanout.cublas.library";
  static final String NONE = "none";

  /** Tried in this order: the newest major version first, then the unversioned development link. */
  static final List<String> SONAMES = List.of("libcublas.so.13", "libcublas.so.12", "libcublas.so");

  private static Opened<NativeLibrary> bound;

  private CublasLibrary() {}

  /**
   * The outcome of trying library names: the name that opened and what opening it gave, or null for
   * both and, in {@code failure}, every name's reason on one line.
   */
  record Opened<L>(String name, L library, String failure) {
    boolean ok() {
      return library != null;
    }
  }

  /** Whether {@code -Dfanout.cublas.library=none} turns cuBLAS off; read at each call. */
  static boolean disabled() {
    return NONE.equals(System.getProperty(LIBRARY_PROPERTY));
  }

  /** The names to try: the override alone when it is set, else {@link #SONAMES}. */
  static List<String> candidates(String override) {
    return override == null || override.isBlank() ? SONAMES : List.of(override.trim());
  }

  /**
   * The library {@link CublasNative} is bound to, binding it on the first call; never throws: a
   * failure, JNA's own included, is described in {@link Opened#failure}.
   */
  static synchronized Opened<NativeLibrary> binding() {
    if (bound == null) {
      bound = bind(candidates(System.getProperty(LIBRARY_PROPERTY)));
    }
    return bound;
  }

  private static Opened<NativeLibrary> bind(List<String> names) {
    try {
      Opened<NativeLibrary> o = first(names, CublasLibrary::openWithSymbols);
      if (o.ok()) {
        CublasNative.bind(o.library());
      }
      return o;
    } catch (LinkageError e) {
      return new Opened<>(null, null, "JNA could not bind cuBLAS: " + oneLine(e.getMessage()));
    }
  }

  /** Opens {@code name} and checks that it exports every symbol, else throws and closes it. */
  static NativeLibrary openWithSymbols(String name) {
    NativeLibrary lib = NativeLibrary.getInstance(name);
    try {
      for (String s : CublasNative.SYMBOLS) {
        lib.getFunction(s);
      }
      return lib;
    } catch (UnsatisfiedLinkError e) {
      lib.close();
      throw e;
    }
  }

  /**
   * The first of {@code names} that {@code open} opens, trying them in order; an {@link
   * UnsatisfiedLinkError} moves on to the next name.
   */
  static <L> Opened<L> first(List<String> names, Function<String, L> open) {
    StringBuilder why = new StringBuilder();
    for (String name : names) {
      try {
        return new Opened<>(name, open.apply(name), "");
      } catch (UnsatisfiedLinkError e) {
        String reason = oneLine(e.getMessage());
        why.append(why.length() == 0 ? "" : "; ")
            .append(reason.startsWith(name) ? reason : name + ": " + reason);
      }
    }
    return new Opened<>(null, null, "no cuBLAS library loads (" + why + ")");
  }

  /**
   * A loader message on one line: JNA's starts with "Unable to load library" and gives the dynamic
   * loader's own reason on the next line, which is the one kept.
   */
  static String oneLine(String message) {
    if (message == null || message.isBlank()) {
      return "no message";
    }
    String[] lines = message.strip().split("\\R");
    return (lines.length > 1 && lines[0].startsWith("Unable to load library") ? lines[1] : lines[0])
        .strip();
  }
}
