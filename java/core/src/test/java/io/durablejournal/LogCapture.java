package io.durablejournal;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;

/**
 * The lines one logger writes at INFO and above, as {@code "<LEVEL> <message>"}, caught where a
 * Flink runtime's lines end up: SLF4J's Log4j binding (on the test class path, as in Flink's
 * {@code lib/}). Closing it puts the logger configuration back.
 */
public final class LogCapture implements AutoCloseable {
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final LoggerContext context = LoggerContext.getContext(false);
    private final String loggerName;
    private final AbstractAppender appender;

    public LogCapture(String loggerName) {
        this.loggerName = loggerName;
        this.appender = new AbstractAppender("capture-" + UUID.randomUUID(), null, null, true, Property.EMPTY_ARRAY) {
            @Override
            public void append(LogEvent event) {
                lines.add(event.getLevel() + " " + event.getMessage().getFormattedMessage());
            }
        };
        appender.start();
        LoggerConfig config = new LoggerConfig(loggerName, Level.INFO, false);
        config.addAppender(appender, Level.ALL, null);
        context.getConfiguration().addLogger(loggerName, config);
        context.updateLoggers();
    }

    /** The lines caught so far. */
    public List<String> lines() {
        return new ArrayList<>(lines);
    }

    @Override
    public void close() {
        context.getConfiguration().removeLogger(loggerName);
        context.updateLoggers();
        appender.stop();
    }
}
