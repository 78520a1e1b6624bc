package io.fanout.tensor.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.util.ArrayList;
import java.util.List;
import jcuda.driver.CUstream;
import org.junit.jupiter.api.Test;

class CublasLibraryTest {
  @Test
  void triesTheNewestMajorVersionFirstAndTheOverrideAlone() {
    assertThat(CublasLibrary.candidates(null))
        .containsExactly("libcublas.so.13", "libcublas.so.12", "libcublas.so");
    assertThat(CublasLibrary.candidates(" ")).isEqualTo(CublasLibrary.SONAMES);
    assertThat(CublasLibrary.candidates("/opt/cuda/lib64/libcublas.so.12"))
        .containsExactly("/opt/cuda/lib64/libcublas.so.12");
  }

  @Test
  void takesTheFirstNameThatOpensAndStopsThere() {
    List<String> tried = new ArrayList<>();
    CublasLibrary.Opened<String> o =
        CublasLibrary.first(
            CublasLibrary.SONAMES,
            name -> {
              tried.add(name);
              if (name.endsWith(".13")) {
                throw new UnsatisfiedLinkError(
                    "Unable to load library 'libcublas.so.13':\n"
                        + "libcublas.so.13: cannot open shared object file\n"
                        + "Native library (linux-x86-64/libcublas.so.13) not found");
              }
              return "lib:" + name;
            });
    assertThat(tried).containsExactly("libcublas.so.13", "libcublas.so.12");
    assertThat(o.ok()).isTrue();
    assertThat(o.name()).isEqualTo("libcublas.so.12");
    assertThat(o.library()).isEqualTo("lib:libcublas.so.12");
  }

  @Test
  void whenNoNameOpensTheFailureNamesEachOnOneLine() {
    CublasLibrary.Opened<?> o =
        CublasLibrary.first(
            List.of("libcublas-absent.so.99", "libcublas-absent.so"),
            CublasLibrary::openWithSymbols);
    assertThat(o.ok()).isFalse();
    assertThat(o.name()).isNull();
    assertThat(o.failure())
        .startsWith("no cuBLAS library loads (libcublas-absent.so.99: ")
        .contains("; libcublas-absent.so: ")
        .doesNotContain("libcublas-absent.so.99: libcublas-absent.so.99")
        .doesNotContain("\n");
  }

  @Test
  void aLibraryWithoutTheSymbolsIsNotUsed() {
    // libc opens everywhere and exports no cuBLAS function
    CublasLibrary.Opened<?> o =
        CublasLibrary.first(List.of("libc.so.6"), CublasLibrary::openWithSymbols);
    assertThat(o.ok()).isFalse();
    assertThat(o.failure()).contains("libc.so.6", "cublasCreate_v2").doesNotContain("\n");
  }

  @Test
  void withoutLibcublasTryCreateReturnsNullWithTheReason() {
    assumeThat(CublasLibrary.binding().ok()).as("this machine has no libcublas").isFalse();
    String[] why = {""};
    assertThat(CublasGemm.tryCreate(new CUstream(), why)).isNull();
    assertThat(why[0])
        .startsWith("no cuBLAS library loads (libcublas.so.13: ")
        .doesNotContain("\n");
    System.out.println("cuBLAS not loaded: " + why[0]);
  }

  @Test
  void noneTurnsCublasOffBeforeAnyLibraryIsOpened() {
    String before = System.getProperty(CublasLibrary.LIBRARY_PROPERTY);
    System.setProperty(CublasLibrary.LIBRARY_PROPERTY, "none");
    try {
      assertThat(CublasLibrary.disabled()).isTrue();
      String[] why = {""};
      assertThat(CublasGemm.tryCreate(new CUstream(), why)).isNull();
      assertThat(why[0]).isEqualTo("turned off by -Dfanout.cublas.library=none");
    } finally {
      if (before == null) {
        System.clearProperty(CublasLibrary.LIBRARY_PROPERTY);
      } else {
        System.setProperty(CublasLibrary.LIBRARY_PROPERTY, before);
      }
    }
  }

  @Test
  void versionNumbersAndStatusesAreSpelled() {
    assertThat(CublasNative.versionString(130002)).isEqualTo("13.0.2");
    assertThat(CublasNative.versionString(120903)).isEqualTo("12.9.3");
    assertThat(CublasNative.statusName(7)).isEqualTo("CUBLAS_STATUS_INVALID_VALUE");
    assertThat(CublasNative.statusName(99)).isEqualTo("CUBLAS_STATUS_99");
  }
}
