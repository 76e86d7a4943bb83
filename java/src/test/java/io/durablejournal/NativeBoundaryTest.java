package io.durablejournal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** A Rust panic becomes a Java exception and the JVM, and the library, keep working. */
class NativeBoundaryTest {
    @Test
    void panicInRustIsAJavaExceptionAndTheJvmCarriesOn() throws Exception {
        NativeLibrary.load();
        for (int i = 0; i < 3; i++) {
            JournalException e = assertThrows(JournalException.class,
                    () -> NativeDiagnostics.panicWith("kaboom ✨".getBytes(StandardCharsets.UTF_8)));
            assertEquals(JournalException.Code.PANIC, e.getCode());
            assertTrue(e.getMessage().contains("kaboom ✨"), e.getMessage());
        }
        RunnerContextImpl runner = new RunnerContextImpl(new DurableExecutionContext(new ActionState(), null));
        assertEquals("still alive", runner.durableExecute(TestCalls.returning("after-panic", "still alive")));
    }

    @Test
    void nullArgumentsAtTheNativeBoundaryAreNullPointerExceptions() {
        NativeLibrary.load();
        assertThrows(NullPointerException.class, () -> NativeDiagnostics.panicWith(null));
        assertThrows(NullPointerException.class, () -> NativeJournal.create(null));
    }

    @Test
    void aZeroHandleIsRefusedNotDereferenced() {
        NativeLibrary.load();
        JournalException e = assertThrows(JournalException.class, () -> NativeJournal.currentCallIndex(0));
        assertEquals(JournalException.Code.CLOSED, e.getCode());
    }
}
