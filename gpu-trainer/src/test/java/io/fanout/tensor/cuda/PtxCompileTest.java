package io.fanout.tensor.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import jcuda.nvptxcompiler.JNvPTXCompiler;
import jcuda.nvptxcompiler.nvPTXCompileResult;
import jcuda.nvptxcompiler.nvPTXCompilerHandle;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every shipped PTX module compiles for the target architectures with the PTX compiler bundled in
 * jcuda-natives (no GPU or driver needed), defines the kernels the backend launches, and no kernel
 * spills registers to local memory.
 */
class PtxCompileTest {
  private static final Pattern FUNCTION =
      Pattern.compile("Compiling entry function '(\\w+)' for '(sm_\\d+)'");
  private static final Pattern SPILLS =
      Pattern.compile("(\\d+) bytes spill stores, (\\d+) bytes spill loads");

  static List<Object[]> modulesAndArchs() {
    List<Object[]> out = new java.util.ArrayList<>();
    for (String m : new java.util.TreeSet<>(PtxModules.KERNELS.keySet())) {
      out.add(new Object[] {m, "sm_80"});
      out.add(new Object[] {m, "sm_90"});
    }
    return out;
  }

  @ParameterizedTest(name = "{0}.ptx for {1}")
  @MethodSource("modulesAndArchs")
  void compilesWithoutSpills(String module, String arch) {
    CompileResult r = compile(PtxModules.ptx(module), arch);
    assertThat(r.rc)
        .as("compile %s for %s: %s", module, arch, r.errorLog)
        .isEqualTo(nvPTXCompileResult.NVPTXCOMPILE_SUCCESS);
    assertThat(r.cubinBytes).isPositive();
    Map<String, int[]> spills = spillsPerKernel(r.infoLog);
    assertThat(spills.keySet())
        .as("kernels compiled from %s.ptx (info log: %s)", module, r.infoLog)
        .containsAll(PtxModules.KERNELS.get(module));
    spills.forEach(
        (kernel, s) ->
            assertThat(s)
                .as("spill stores/loads of %s for %s", kernel, arch)
                .containsExactly(0, 0));
  }

  @org.junit.jupiter.api.Test
  void spillParserReadsSpillingKernels() {
    String log =
        "ptxas info    : Compiling entry function 'k' for 'sm_80'\n"
            + "ptxas info    : Function properties for k\n"
            + "    16 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads\n"
            + "ptxas info    : Used 255 registers\n";
    assertThat(spillsPerKernel(log)).containsOnlyKeys("k");
    assertThat(spillsPerKernel(log).get("k")).containsExactly(8, 4);
  }

  @org.junit.jupiter.api.Test
  void brokenPtxIsReported() {
    String ptx = PtxModules.ptx("elementwise").replace("ret;", "retx;");
    assertThat(compile(ptx, "sm_80").rc).isNotEqualTo(nvPTXCompileResult.NVPTXCOMPILE_SUCCESS);
  }

  /** Kernel name to {spill stores, spill loads} from the compiler's verbose info log. */
  static Map<String, int[]> spillsPerKernel(String infoLog) {
    Map<String, int[]> out = new java.util.LinkedHashMap<>();
    String current = null;
    for (String line : infoLog.split("\n")) {
      Matcher f = FUNCTION.matcher(line);
      if (f.find()) {
        current = f.group(1);
        out.put(current, new int[] {0, 0});
        continue;
      }
      Matcher s = SPILLS.matcher(line);
      if (s.find() && current != null) {
        out.put(current, new int[] {Integer.parseInt(s.group(1)), Integer.parseInt(s.group(2))});
      }
    }
    return out;
  }

  private static final class CompileResult {
    int rc;
    long cubinBytes;
    String infoLog = "";
    String errorLog = "";
  }

  private static CompileResult compile(String ptx, String arch) {
    byte[] src = (ptx + "\0").getBytes(StandardCharsets.US_ASCII);
    nvPTXCompilerHandle h = new nvPTXCompilerHandle();
    JNvPTXCompiler.setExceptionsEnabled(false);
    int rc = JNvPTXCompiler.nvPTXCompilerCreate(h, src.length, src);
    assertThat(rc).as("nvPTXCompilerCreate").isEqualTo(nvPTXCompileResult.NVPTXCOMPILE_SUCCESS);
    CompileResult r = new CompileResult();
    try {
      r.rc =
          JNvPTXCompiler.nvPTXCompilerCompile(
              h, 3, new String[] {"--gpu-name=" + arch, "--verbose", "-O3"});
      r.infoLog = log(h, true);
      r.errorLog = log(h, false);
      if (r.rc == nvPTXCompileResult.NVPTXCOMPILE_SUCCESS) {
        long[] size = new long[1];
        JNvPTXCompiler.nvPTXCompilerGetCompiledProgramSize(h, size);
        r.cubinBytes = size[0];
      }
    } finally {
      JNvPTXCompiler.nvPTXCompilerDestroy(h);
    }
    return r;
  }

  private static String log(nvPTXCompilerHandle h, boolean info) {
    long[] size = new long[1];
    if (info) {
      JNvPTXCompiler.nvPTXCompilerGetInfoLogSize(h, size);
    } else {
      JNvPTXCompiler.nvPTXCompilerGetErrorLogSize(h, size);
    }
    if (size[0] <= 1) {
      return "";
    }
    byte[] b = new byte[(int) size[0]];
    if (info) {
      JNvPTXCompiler.nvPTXCompilerGetInfoLog(h, b);
    } else {
      JNvPTXCompiler.nvPTXCompilerGetErrorLog(h, b);
    }
    return new String(b, 0, b.length - 1, StandardCharsets.US_ASCII);
  }
}
