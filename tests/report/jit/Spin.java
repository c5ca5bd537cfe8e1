// Two hot methods, 75/25 of the time by design: hotA does 3 units of work per hotB's 1.
public class Spin {
    static long hotA(long n) { long x = 1; for (long i = 0; i < n; i++) x = x * 6364136223846793005L + i; return x; }
    static long hotB(long n) { long x = 1; for (long i = 0; i < n; i++) x = x * 6364136223846793005L + i; return x; }
    public static void main(String[] args) {
        long end = System.nanoTime() + (long) (Double.parseDouble(args.length > 0 ? args[0] : "3") * 1e9);
        long sink = 0;
        while (System.nanoTime() < end) { sink += hotA(3000000); sink += hotB(1000000); }
        if (sink == 42) System.out.println(sink);
    }
}
