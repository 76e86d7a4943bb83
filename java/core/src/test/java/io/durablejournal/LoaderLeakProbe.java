package io.durablejournal;

import java.io.File;
import java.io.IOException;
import java.lang.ref.WeakReference;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The child JVM of {@link LoaderLeakTest}: what a Flink TaskManager does to a job jar on every
 * resubmit, many times over. Each round makes a fresh class loader over the job's jars (child
 * first, as Flink's user-code loader: the jars' own Jackson wins over a parent's), runs one
 * durable call there on a thread of its own (an entry class of the jars, a {@link Callable}), and
 * drops it. After the rounds it collects until every loader's {@link WeakReference} cleared and
 * the native library's mappings are back to where they were, and prints one line per checkpoint:
 * {@code CHECKPOINT <name> rounds=<n> collected=<n> mappings=<n> rssKb=<n>}.
 *
 * <p>Uses the JDK only: its own class path is this class's directory, so nothing of the project
 * is loaded but by the rounds' loaders.
 *
 * <p>Arguments: {@code <entry class> <rounds> <checkpoint round> <jar or dir>[:<jar or dir>...]
 * [<parent jars>]}: the parent jars (e.g. Flink Agents, as Flink's {@code lib/} holds it) are
 * loaded once by a loader shared by all rounds.
 */
public final class LoaderLeakProbe {
    /** How long collecting may take at a checkpoint; a loader still alive then is a leak. */
    private static final long COLLECT_DEADLINE_MILLIS = 20_000;
    private static final String LIBRARY_FILE = System.mapLibraryName("durable_journal");

    private LoaderLeakProbe() {}

    public static void main(String[] args) throws Exception {
        String entry = args[0];
        int rounds = Integer.parseInt(args[1]);
        int checkpoint = Integer.parseInt(args[2]);
        URL[] jars = urls(args[3]);
        ClassLoader parent = args.length > 4 ? new URLClassLoader(urls(args[4]), ClassLoader.getPlatformClassLoader())
                : ClassLoader.getPlatformClassLoader();
        List<WeakReference<ClassLoader>> loaders = new ArrayList<>();
        report("start", 0, loaders);
        for (int round = 1; round <= rounds; round++) {
            loaders.add(new WeakReference<>(oneRound(entry, jars, parent, round)));
            if (round == 1) {
                report("first", round, loaders);
            } else if (round == checkpoint || round == rounds) {
                report(round == rounds ? "last" : "checkpoint", round, loaders);
            }
        }
    }

    /** A fresh loader, one durable call through it on a thread of its own, closed; the loader. */
    private static ClassLoader oneRound(String entry, URL[] jars, ClassLoader parent, int round) throws Exception {
        URLClassLoader loader = new ChildFirst(jars, parent);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicReference<Object> answer = new AtomicReference<>();
        Thread task = new Thread(() -> {
            try {
                Callable<?> call = (Callable<?>) loader.loadClass(entry).getDeclaredConstructor().newInstance();
                answer.set(call.call());
            } catch (Throwable e) {
                failure.set(e);
            }
        }, "round " + round);
        task.setContextClassLoader(loader);
        task.start();
        task.join();
        if (failure.get() != null) {
            throw new IllegalStateException("round " + round + " failed", failure.get());
        }
        if (round == 1) {
            System.out.println("ANSWER " + answer.get());
        }
        loader.close();
        return loader;
    }

    /**
     * Collects until every loader is gone and no copy of the library is mapped (the JVM unloads
     * a copy on its Cleaner thread once its loader was collected), or the deadline passes.
     */
    private static void report(String name, int rounds, List<WeakReference<ClassLoader>> loaders) throws Exception {
        long deadline = System.currentTimeMillis() + COLLECT_DEADLINE_MILLIS;
        while (System.currentTimeMillis() < deadline) {
            System.gc();
            if (collected(loaders) == loaders.size() && mappings() == 0) {
                break;
            }
            Thread.sleep(20); // polling the collector with a deadline, not waiting for an event
        }
        System.out.println("CHECKPOINT " + name + " rounds=" + rounds + " collected=" + collected(loaders)
                + " mappings=" + mappings() + " rssKb=" + rssKb());
    }

    private static int collected(List<WeakReference<ClassLoader>> loaders) {
        return (int) loaders.stream().filter(l -> l.get() == null).count();
    }

    /** Lines of /proc/self/maps naming the native library (any copy of it). */
    private static int mappings() throws IOException {
        return (int) Files.readAllLines(Paths.get("/proc/self/maps"), StandardCharsets.UTF_8).stream()
                .filter(line -> line.contains(LIBRARY_FILE))
                .count();
    }

    private static long rssKb() throws IOException {
        for (String line : Files.readAllLines(Paths.get("/proc/self/status"), StandardCharsets.UTF_8)) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        throw new IOException("no VmRSS in /proc/self/status");
    }

    private static URL[] urls(String path) throws IOException {
        List<URL> urls = new ArrayList<>();
        for (String element : path.split(File.pathSeparator)) {
            if (!element.isEmpty()) {
                urls.add(new File(element).toURI().toURL());
            }
        }
        return urls.toArray(new URL[0]);
    }

    /** Flink's user-code class loading: the job's jars first, the JDK always from the parent. */
    private static final class ChildFirst extends URLClassLoader {
        static {
            ClassLoader.registerAsParallelCapable();
        }

        ChildFirst(URL[] urls, ClassLoader parent) {
            super(urls, parent);
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            synchronized (getClassLoadingLock(name)) {
                Class<?> loaded = findLoadedClass(name);
                if (loaded == null && !name.startsWith("java.") && !name.startsWith("javax.")) {
                    try {
                        loaded = findClass(name);
                    } catch (ClassNotFoundException notInTheJars) {
                        loaded = null;
                    }
                }
                if (loaded == null) {
                    loaded = getParent().loadClass(name);
                }
                if (resolve) {
                    resolveClass(loaded);
                }
                return loaded;
            }
        }
    }
}
