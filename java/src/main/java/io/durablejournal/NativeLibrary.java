package io.durablejournal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

/**
 * Loads {@code libdurable_journal.so} once per class loader.
 *
 * <p>Order: the file named by the system property {@code durablejournal.library}, then
 * {@code java.library.path}, then the copy bundled in the jar. The bundled copy is extracted to a
 * fresh temporary directory on every load because a JVM refuses to load one file path from two class
 * loaders, and a Flink job restart brings a new user-code class loader. The extracted file is deleted
 * right after {@code System.load} (the mapping stays valid), so a crashed JVM leaves nothing behind.
 */
public final class NativeLibrary {
    static final String LIBRARY_NAME = "durable_journal";
    private static final int EXPECTED_ABI_VERSION = 2;
    private static volatile boolean loaded;

    private NativeLibrary() {}

    /** Loads the library if this class loader has not yet; safe to call often. */
    public static void load() {
        if (loaded) {
            return;
        }
        synchronized (NativeLibrary.class) {
            if (loaded) {
                return;
            }
            loadOnce();
            int abi = NativeDiagnostics.abiVersion();
            if (abi != EXPECTED_ABI_VERSION) {
                throw new UnsatisfiedLinkError("libdurable_journal.so has ABI version " + abi
                        + " but these classes expect " + EXPECTED_ABI_VERSION + "; rebuild or remove the stale library");
            }
            loaded = true;
        }
    }

    private static void loadOnce() {
        String explicit = System.getProperty("durablejournal.library");
        if (explicit != null && !explicit.isEmpty()) {
            System.load(explicit);
            return;
        }
        UnsatisfiedLinkError fromLibraryPath;
        try {
            System.loadLibrary(LIBRARY_NAME);
            return;
        } catch (UnsatisfiedLinkError e) {
            fromLibraryPath = e;
        }
        try {
            loadBundled();
        } catch (IOException | UnsatisfiedLinkError e) {
            UnsatisfiedLinkError error = new UnsatisfiedLinkError(
                    "cannot load lib" + LIBRARY_NAME + ".so from java.library.path (" + fromLibraryPath.getMessage()
                            + ") nor from the jar (" + e + ")");
            error.initCause(e);
            throw error;
        }
    }

    /** The jar resource of the library built for this platform. */
    static String bundledResource() {
        return "/io/durablejournal/native/" + platform() + "/lib" + LIBRARY_NAME + ".so";
    }

    private static String platform() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("linux") ? "linux" : "unsupported";
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        if (arch.equals("amd64") || arch.equals("x86_64")) {
            arch = "x86_64";
        } else if (arch.equals("arm64")) {
            arch = "aarch64";
        }
        return os + "-" + arch;
    }

    private static void loadBundled() throws IOException {
        String resource = bundledResource();
        try (InputStream in = NativeLibrary.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IOException("no bundled library at " + resource + " for this platform");
            }
            Path dir = Files.createTempDirectory("durable-journal-");
            Path file = dir.resolve("lib" + LIBRARY_NAME + ".so");
            try {
                Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
                System.load(file.toAbsolutePath().toString());
            } finally {
                Files.deleteIfExists(file);
                Files.deleteIfExists(dir);
            }
        }
    }
}
