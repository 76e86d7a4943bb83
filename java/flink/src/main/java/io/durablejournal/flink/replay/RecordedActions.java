package io.durablejournal.flink.replay;

import io.durablejournal.store.RetainedAction;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * Where a replay reads recorded (retained) actions from, read-only: a file store directory ({@link
 * #store}), a dump of a Kafka store's retained topic ({@link #dump}), or that topic itself ({@code
 * io.durablejournal.kafka.KafkaRecordedActions}, in the Kafka jar). Every source lists the same
 * {@link RetainedAction}s, decoded by the native library; {@link JournalReplayer#replay(RecordedActions,
 * ReplaySelection)} replays any of them the same way.
 */
public interface RecordedActions {
    /** The recorded actions, oldest first. Reading changes nothing where they are kept. */
    List<RetainedAction> read();

    /** Where they are, for people. */
    String describe();

    /** What the file store in {@code dir} retained ({@link RetainedAction#read}): no lock taken, no file changed. */
    static RecordedActions store(Path dir) {
        Objects.requireNonNull(dir, "dir");
        return new RecordedActions() {
            @Override
            public List<RetainedAction> read() {
                return RetainedAction.read(dir);
            }

            @Override
            public String describe() {
                return "the store in " + dir;
            }
        };
    }

    /**
     * What a dump of a Kafka store's retained topic holds ({@code KafkaJournalTool dump <servers>
     * <topic>-retained <file>}; {@link RetainedAction#readLogDump}).
     */
    static RecordedActions dump(Path file) {
        Objects.requireNonNull(file, "file");
        return new RecordedActions() {
            @Override
            public List<RetainedAction> read() {
                try {
                    return RetainedAction.readLogDump(Files.readAllBytes(file));
                } catch (IOException e) {
                    throw new UncheckedIOException("reading the dump " + file + " failed", e);
                }
            }

            @Override
            public String describe() {
                return "the dump " + file;
            }
        };
    }
}
