package io.durablejournal.internal;

/**
 * Where durable-journal's log lines go: SLF4J when the class loader that loaded this class finds
 * it (every Flink runtime provides {@code slf4j-api}, always parent-first, and routes it to the
 * cluster's Log4j files), else {@link System.Logger} (java.util.logging unless the application
 * plugs in another). The core jar only compiles against SLF4J ({@code compileOnly}): Jackson stays
 * its only dependency, and its classes load and log without SLF4J. Lines are few by design: one
 * per restore, one per divergence or refused setting, none per call.
 */
public final class LibraryLog {
    private static final boolean SLF4J = slf4jPresent();

    private final String name;
    /** An org.slf4j.Logger when {@link #SLF4J}, else a System.Logger: typed Object so no SLF4J type is linked without it. */
    private final Object logger;

    private LibraryLog(String name) {
        this.name = name;
        this.logger = SLF4J ? Slf4j.logger(name) : System.getLogger(name);
    }

    /** The log named after {@code owner}'s class name. */
    public static LibraryLog of(Class<?> owner) {
        return new LibraryLog(owner.getName());
    }

    /** Whether lines go to SLF4J (else to {@link System.Logger}). */
    public static boolean routesToSlf4j() {
        return SLF4J;
    }

    public void info(String message) {
        if (SLF4J) {
            Slf4j.info(logger, message);
        } else {
            ((System.Logger) logger).log(System.Logger.Level.INFO, message);
        }
    }

    public void warn(String message) {
        if (SLF4J) {
            Slf4j.warn(logger, message);
        } else {
            ((System.Logger) logger).log(System.Logger.Level.WARNING, message);
        }
    }

    @Override
    public String toString() {
        return "LibraryLog(" + name + (SLF4J ? ", SLF4J)" : ", System.Logger)");
    }

    private static boolean slf4jPresent() {
        try {
            Class.forName("org.slf4j.LoggerFactory", false, LibraryLog.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError absent) {
            return false;
        }
    }

    /** The only class that names SLF4J's types: loaded (and linked) only when SLF4J is present. */
    private static final class Slf4j {
        static Object logger(String name) {
            return org.slf4j.LoggerFactory.getLogger(name);
        }

        static void info(Object logger, String message) {
            ((org.slf4j.Logger) logger).info(message);
        }

        static void warn(Object logger, String message) {
            ((org.slf4j.Logger) logger).warn(message);
        }
    }
}
