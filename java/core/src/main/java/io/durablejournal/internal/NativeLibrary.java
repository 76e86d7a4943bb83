package io.durablejournal.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
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
 * right after {@code System.load} (the mapping stays valid, and goes when the loader is collected),
 * so a running JVM keeps no file. Where the system refuses to delete a loaded library (Windows), the
 * JVM deletes it at exit; a directory left by a JVM that died between extracting and deleting
 * (its name carries that JVM's process id) is removed by the next load on the machine.
 */
public final class NativeLibrary {
    static final String LIBRARY_NAME = "durable_journal";
    /** The JNI version these classes speak (tests/vectors/constants.json {@code jni_version}; the C ABI has its own). */
    static final int EXPECTED_JNI_VERSION = 19;
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
            int jni = jniVersion();
            if (jni != EXPECTED_JNI_VERSION) {
                throw new UnsatisfiedLinkError("libdurable_journal.so has JNI version " + jni
                        + " but these classes expect " + EXPECTED_JNI_VERSION + "; rebuild or remove the stale library");
            }
            loaded = true;
        }
    }

    /** The JNI version of the library just loaded ({@code rust/jni/diagnostics.rs}). */
    private static native int jniVersion();

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
            Path dir = Files.createTempDirectory(EXTRACTED_PREFIX + ProcessHandle.current().pid() + "-");
            removeOrphans(dir.getParent());
            Path file = dir.resolve(System.mapLibraryName(LIBRARY_NAME));
            try {
                Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
                System.load(file.toAbsolutePath().toString());
            } finally {
                remove(file);
                remove(dir);
            }
        }
    }

    /** Extracted copies live in {@code durable-journal-native-<pid>-<random>} directories of the temporary directory. */
    static final String EXTRACTED_PREFIX = "durable-journal-native-";

    /** Deletes {@code path} now, or at the JVM's exit when the system refuses (a loaded library on Windows). */
    private static void remove(Path path) {
        try {
            Files.deleteIfExists(path);
        } catch (IOException inUse) {
            path.toFile().deleteOnExit();
        }
    }

    /**
     * Removes the directories of extracted copies in {@code tmp} whose JVM is gone (it died before it
     * could delete them); those of running JVMs, this one's included, stay. Best effort: what cannot
     * be removed is left for the next load.
     */
    static void removeOrphans(Path tmp) {
        long self = ProcessHandle.current().pid();
        try (DirectoryStream<Path> extracted = Files.newDirectoryStream(tmp, EXTRACTED_PREFIX + "*")) {
            for (Path dir : extracted) {
                long owner = ownerPid(dir.getFileName().toString());
                if (owner > 0 && owner != self && !ProcessHandle.of(owner).map(ProcessHandle::isAlive).orElse(false)) {
                    removeTree(dir);
                }
            }
        } catch (IOException | SecurityException unreadable) {
            // Nothing to tidy where the directory cannot be listed.
        }
    }

    /** The process id in {@code durable-journal-native-<pid>-<random>}, or -1 for another name. */
    static long ownerPid(String name) {
        int end = name.indexOf('-', EXTRACTED_PREFIX.length());
        if (end <= EXTRACTED_PREFIX.length()) {
            return -1;
        }
        try {
            return Long.parseLong(name.substring(EXTRACTED_PREFIX.length(), end));
        } catch (NumberFormatException notOurs) {
            return -1;
        }
    }

    private static void removeTree(Path dir) throws IOException {
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (Path file : files) {
                Files.deleteIfExists(file);
            }
        }
        Files.deleteIfExists(dir);
    }
}
