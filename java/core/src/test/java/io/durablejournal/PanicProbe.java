package io.durablejournal;

import io.durablejournal.internal.NativeLibrary;
import java.nio.charset.StandardCharsets;

/**
 * Run by {@link NativeBoundaryTest} in a child JVM on the library built with the cargo feature
 * {@code test-exports}: makes Rust panic through {@link DiagnosticsJni#panicWith} and prints
 * what Java saw, one {@code OK} line per check, then shows the library and the JVM still work.
 */
public final class PanicProbe {
    private PanicProbe() {}

    public static void main(String[] args) throws Exception {
        NativeLibrary.load();
        for (int i = 0; i < 3; i++) {
            try {
                DiagnosticsJni.panicWith("kaboom ✨".getBytes(StandardCharsets.UTF_8));
                System.out.println("FAIL panicWith returned");
            } catch (JournalException e) {
                // The check is made here: the child's output encoding may not carry the sparkle.
                System.out.println("OK panic " + i + ": " + e.getCode() + ", message kept: " + e.getMessage().contains("kaboom ✨"));
            }
        }
        try {
            DiagnosticsJni.panicWith(null);
            System.out.println("FAIL panicWith(null) returned");
        } catch (NullPointerException e) {
            System.out.println("OK null: " + e.getMessage());
        }
        try (DurableExecutionContext journal = new DurableExecutionContext(new ActionState(), null)) {
            String value = new RunnerContextImpl(journal).durableExecute(DurableCallable.of("after-panic", String.class, () -> "alive"));
            System.out.println("OK after the panics: " + value + ", " + journal.size() + " slot");
        }
    }
}
