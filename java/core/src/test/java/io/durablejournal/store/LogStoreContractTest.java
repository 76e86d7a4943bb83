package io.durablejournal.store;

import java.util.List;

/**
 * The store contract on the log-backed store over an in-memory log of three partitions (the Kafka
 * store is the same store over a topic: java/kafka's KafkaStoreContractTest). A restore opens a
 * new store over the same log, as a restored job's subtask does.
 */
class LogStoreContractTest extends ActionStateStoreContract {
    private static final int MAX_PARALLELISM = 8;
    private final MemoryLog log = new MemoryLog("memory log", 3);

    /**
     * Stands in for Flink's key groups: from the key's hashCode, as Flink's are (an array's is its
     * identity), modulo the max parallelism.
     */
    private static int keyGroupOf(Object key) {
        return Math.floorMod(key.hashCode(), MAX_PARALLELISM);
    }

    private LogActionStateStore openOverTheLog() {
        return LogActionStateStore.open(log, MAX_PARALLELISM, 0, MAX_PARALLELISM - 1, LogStoreContractTest::keyGroupOf);
    }

    @Override
    protected ActionStateStore openNew() {
        LogActionStateStore store = openOverTheLog();
        store.startFresh(new byte[16]);
        return store;
    }

    @Override
    protected ActionStateStore restore(ActionStateStore store, List<byte[]> markers) {
        store.close();
        LogActionStateStore restored = track(openOverTheLog());
        restored.rebuildState(markers);
        return restored;
    }
}
