package io.durablejournal.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.durablejournal.LogCapture;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/**
 * Where the library's log lines go: to SLF4J where the class path has it (as every Flink runtime
 * does), and, from the core jar with Jackson only (what the core's POM declares), to {@link
 * System.Logger}: its classes load and log without SLF4J.
 */
class LibraryLogTest {
    @Test
    void withSlf4jOnTheClassPathTheLinesGoThroughIt() {
        assertTrue(LibraryLog.routesToSlf4j());
        try (LogCapture capture = new LogCapture(LibraryLogTest.class.getName())) {
            LibraryLog log = LibraryLog.of(LibraryLogTest.class);
            log.info("restored");
            log.warn("diverged");
            assertEquals(Arrays.asList("INFO restored", "WARN diverged"), capture.lines());
        }
    }

    @Test
    void theCoreJarWithJacksonAloneLogsThroughSystemLogger() throws Exception {
        List<URL> jars = new ArrayList<>();
        jars.add(Paths.get(System.getProperty("durablejournal.test.jar")).toUri().toURL());
        for (Class<?> jackson : Arrays.asList(ObjectMapper.class, JsonFactory.class, JsonProperty.class, JavaTimeModule.class)) {
            jars.add(jackson.getProtectionDomain().getCodeSource().getLocation());
        }
        List<LogRecord> records = new ArrayList<>();
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord record) {
                records.add(record);
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        Logger jul = Logger.getLogger("io.durablejournal.DurableExecutionContext");
        jul.addHandler(capture);
        try (URLClassLoader coreAndJackson = new URLClassLoader(jars.toArray(new URL[0]), ClassLoader.getPlatformClassLoader())) {
            assertThrows(ClassNotFoundException.class, () -> Class.forName("org.slf4j.LoggerFactory", false, coreAndJackson));
            Class<?> libraryLog = Class.forName(LibraryLog.class.getName(), true, coreAndJackson);
            assertEquals(false, libraryLog.getMethod("routesToSlf4j").invoke(null));
            // The class whose divergence warning this is, loaded (not initialized: no native library here).
            Class<?> owner = Class.forName("io.durablejournal.DurableExecutionContext", false, coreAndJackson);
            Object log = libraryLog.getMethod("of", Class.class).invoke(null, owner);
            libraryLog.getMethod("warn", String.class).invoke(log, "diverged");
            libraryLog.getMethod("info", String.class).invoke(log, "restored");
        } finally {
            jul.removeHandler(capture);
        }
        assertEquals(2, records.size(), "both lines reached java.util.logging");
        assertEquals(Level.WARNING, records.get(0).getLevel());
        assertEquals("diverged", records.get(0).getMessage());
        assertEquals(Level.INFO, records.get(1).getLevel());
        assertEquals("restored", records.get(1).getMessage());
    }
}
