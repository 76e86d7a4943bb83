package io.durablejournal.store;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.provider.Arguments;

/** Opens native stores for a test class and closes them after each test. */
abstract class StoreFixture {
    @TempDir
    Path tmp;

    private final List<NativeActionStateStore> opened = new ArrayList<>();

    @AfterEach
    void closeStores() {
        opened.forEach(NativeActionStateStore::close);
    }

    /** The kinds {@link #open(String)} takes, as a {@code @MethodSource} for parameterized tests. */
    static Stream<Arguments> stores() {
        return Stream.of(Arguments.of("memory"), Arguments.of("file"));
    }

    /** Closes {@code store} after the test. */
    NativeActionStateStore track(NativeActionStateStore store) {
        opened.add(store);
        return store;
    }

    /** A new in-memory store ("memory") or file store in a fresh directory ("file"). */
    NativeActionStateStore open(String kind) throws Exception {
        if (kind.equals("memory")) {
            return track(ActionStateStores.inMemory());
        }
        Path dir = Files.createDirectories(tmp.resolve("store-" + opened.size()));
        return track(ActionStateStores.openFileStore(dir));
    }
}
