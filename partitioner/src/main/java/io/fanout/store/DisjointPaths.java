package io.fanout.store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The inputs and outputs of one command, checked before any work so that no output replaces an
 * input or another output. Every path is resolved to its real path (symbolic links followed; a path
 * that does not exist yet through its nearest existing ancestor, and a dangling link through its
 * target), and an output equal to, inside, or holding an input or another output is refused,
 * whether or not overwriting was asked for. Sibling paths sharing a prefix ({@code /a/store} and
 * {@code /a/store2}) do not overlap.
 *
 * <pre>{@code
 * new DisjointPaths()
 *     .input("--graph", graph)
 *     .input("--model-dir", modelDir)
 *     .output("--output", predictions)
 *     .check();
 * }</pre>
 */
public final class DisjointPaths {
  /** Symbolic links followed through dangling targets before the path is taken as it is. */
  private static final int MAX_LINKS = 40;

  private record Named(String name, Path given, Path real) {
    String describe() {
      Path abs = given.toAbsolutePath().normalize();
      return name + " " + given + (abs.equals(real) ? "" : " (real path " + real + ")");
    }
  }

  private final List<Named> inputs = new ArrayList<>();
  private final List<Named> outputs = new ArrayList<>();

  /**
   * Adds an input.
   *
   * @param name the option (or argument) that named it, e.g. {@code --graph}
   * @param path the path; null (an optional input not given) is skipped
   */
  public DisjointPaths input(String name, Path path) {
    if (path != null) {
      inputs.add(new Named(name, path, real(path)));
    }
    return this;
  }

  /**
   * Adds an output.
   *
   * @param name the option that named it, e.g. {@code --output}
   * @param path the path; null (an optional output not given) is skipped
   */
  public DisjointPaths output(String name, Path path) {
    if (path != null) {
      outputs.add(new Named(name, path, real(path)));
    }
    return this;
  }

  /**
   * Refuses the first output that overlaps an input, or an output added before it; then an output
   * that cannot be written ({@link OutputPaths#checkUsable}).
   *
   * @throws InvalidInputException one line naming both options and their paths
   */
  public void check() {
    for (int i = 0; i < outputs.size(); i++) {
      Named out = outputs.get(i);
      for (Named in : inputs) {
        refuseOverlap(out, in, "the input", "it would change or replace the input");
      }
      for (int j = 0; j < i; j++) {
        refuseOverlap(out, outputs.get(j), "the output", "two outputs must not overlap");
      }
    }
    for (Named out : outputs) {
      OutputPaths.checkUsable(out.given, out.name);
    }
  }

  private static void refuseOverlap(Named out, Named other, String kind, String why) {
    String relation;
    if (out.real.equals(other.real)) {
      relation = " is ";
    } else if (out.real.startsWith(other.real)) {
      relation = " is inside ";
    } else if (other.real.startsWith(out.real)) {
      relation = " holds ";
    } else {
      return;
    }
    throw new InvalidInputException(
        out.describe()
            + relation
            + kind
            + " "
            + other.describe()
            + "; "
            + why
            + ": choose another "
            + out.name);
  }

  /**
   * The real path of {@code p}: absolute, symbolic links followed. A path that does not exist is
   * resolved through its nearest existing ancestor (a dangling link through its target); a path
   * that cannot be looked up (no permission, a loop of links) is taken as written, normalized.
   */
  static Path real(Path p) {
    return real(p.toAbsolutePath(), 0);
  }

  private static Path real(Path abs, int links) {
    try {
      return abs.toRealPath();
    } catch (NoSuchFileException e) {
      Path parent = abs.getParent();
      if (parent == null) {
        return abs.normalize();
      }
      if (links < MAX_LINKS && Files.isSymbolicLink(abs)) {
        try {
          return real(parent.resolve(Files.readSymbolicLink(abs)), links + 1);
        } catch (IOException unreadable) {
          // taken by its name below
        }
      }
      return real(parent, links).resolve(abs.getFileName()).normalize();
    } catch (IOException | SecurityException e) {
      return abs.normalize();
    }
  }
}
