package io.fanout.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.conf.OptionDef;
import io.fanout.train.OutOfHeapException;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** An OutOfMemoryError reaching the command boundary exits 2 with one line, not a stack trace. */
class OutOfHeapCliTest {
  /** A command that runs out of heap on the CLI's thread. */
  static final class Hungry implements Command {
    @Override
    public String name() {
      return "hungry";
    }

    @Override
    public String summary() {
      return "runs out of heap";
    }

    @Override
    public List<OptionDef<?>> options() {
      return List.of();
    }

    @Override
    public int run(CommandContext ctx) {
      throw new OutOfMemoryError("Java heap space (injected)");
    }
  }

  @Test
  void outOfHeapExitsTwoNamingTheHeapAndHowToRaiseIt() {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        FanoutCli.run(
            new Hungry(),
            List.of("--progress", "none"),
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    long heap = Runtime.getRuntime().maxMemory();
    assertThat(code).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .isEqualTo(
            "fanout hungry: error: ran out of Java heap (max heap "
                + OutOfHeapException.size(heap)
                + "); "
                + OutOfHeapException.moreHeap(2 * heap)
                + "\n");
  }
}
