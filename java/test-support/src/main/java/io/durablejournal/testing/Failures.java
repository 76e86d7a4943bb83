package io.durablejournal.testing;

import java.io.PrintWriter;
import java.io.StringWriter;

/** What a failed job's exception says, for assertions on a cause deep in Flink's wrapping. */
public final class Failures {
    private Failures() {}

    /** {@code failure} and each of its causes, one {@code toString()} a line. */
    public static String causes(Throwable failure) {
        StringBuilder text = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            text.append(t).append('\n');
        }
        return text.toString();
    }

    /** The full stack trace of {@code failure} with its causes, as printed. */
    public static String stackTraces(Throwable failure) {
        StringWriter out = new StringWriter();
        failure.printStackTrace(new PrintWriter(out));
        return out.toString();
    }
}
