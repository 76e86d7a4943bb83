package io.durablejournal.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

/**
 * Loads {@code libdurable_journal.so} once per class loader. Internal: every class with native
 * methods calls {@link #load()} first; users never need it.
 *
 * <p>Order: the file named by the system property {@code durablejournal.library}, then
 * {@code java.library.path}, then the copy bundled in the jar. The bundled copy is extracted to a
 * fresh temporary directory on every load because a JVM refuses to load one file path from two class
 * loaders, and a Flink job restart brings a new user-code class loader. The extracted file is deleted
 * right after {@code System.load} (the mapping stays valid), so a crashed JVM leaves nothing behind.
 */
public final class NativeLibrary {
    static final String LIBRARY_NAME = "durable_journal";
    static final int EXPECTED_ABI_VERSION = 9;
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
            int abi = abiVersion();
            if (abi != EXPECTED_ABI_VERSION) {
                throw new UnsatisfiedLinkError("libdurable_journal.so has ABI version " + abi
                        + " but these classes expect " + EXPECTED_ABI_VERSION + "; rebuild or remove the stale library");
            }
            loaded = true;
        }
    }

    /** The ABI version of the library just loaded ({@code rust/jni/diagnostics.rs}). */
    private static native int abiVersion();

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
                    "cannot load " + System.mapLibraryName(LIBRARY_NAME) + " from java.library.path (" + fromLibraryPath.getMessage()
                            + ") nor from the jar (" + e + ")");
            error.initCause(e);
            throw error;
        }
    }

    /**
     * The jar resource of the library built for this platform: {@code
     * /io/durablejournal/native/<os>-<arch>/<System.mapLibraryName>}. build.gradle applies the same
     * rule on the building machine (its {@code nativePlatform}), and a test checks that the built
     * jar holds the library where this method looks.
     */
    static String bundledResource() {
        return "/io/durablejournal/native/" + platform(System.getProperty("os.name", ""), System.getProperty("os.arch", ""))
                + "/" + System.mapLibraryName(LIBRARY_NAME);
    }

    /** {@code linux-x86_64}, {@code linux-aarch64}, {@code macos-aarch64}, ...: JVM names normalized. */
    static String platform(String osName, String osArch) {
        String name = osName.toLowerCase(Locale.ROOT);
        String os;
        if (name.startsWith("linux")) {
            os = "linux";
        } else if (name.startsWith("mac") || name.startsWith("darwin")) {
            os = "macos";
        } else if (name.startsWith("windows")) {
            os = "windows";
        } else {
            os = name.replaceAll("[^a-z0-9]", "");
        }
        String arch = osArch.toLowerCase(Locale.ROOT);
        if (arch.equals("amd64") || arch.equals("x86_64") || arch.equals("x64")) {
            arch = "x86_64";
        } else if (arch.equals("arm64") || arch.equals("aarch64")) {
            arch = "aarch64";
        }
        return os + "-" + arch;
    }

    private static void loadBundled() throws IOException {
        String resource = bundledResource();
        try (InputStream in = NativeLibrary.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IOException("this jar has no native library for this platform ("
                        + System.getProperty("os.name") + ", " + System.getProperty("os.arch") + "; looked for " + resource
                        + "). Build it here with `cargo build --release` and pass -Ddurablejournal.library=<path to "
                        + System.mapLibraryName(LIBRARY_NAME) + ">, or put it on java.library.path");
            }
            Path dir = Files.createTempDirectory("durable-journal-");
            Path file = dir.resolve(System.mapLibraryName(LIBRARY_NAME));
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
