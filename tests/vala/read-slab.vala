/* A Vala program built against the installed ncz-1.0.vapi: it catches
 * Ncz.DatasetError.NOT_NCZ, writes a dataset and reads a slab of it
 * with two CPU workers.
 * Prints TAP; argument: a scratch directory. */

int n = 0;
int failures = 0;

void check (string name, bool ok) {
    n++;
    print ("%s %d %s\n", ok ? "ok" : "not ok", n, name);
    if (!ok)
        failures++;
}

int main (string[] args) {
    string dir = args[1];

    /* an empty directory holds no dataset */
    string empty = Path.build_filename (dir, "empty");
    DirUtils.create_with_parents (empty, 0755);
    try {
        Ncz.Dataset.open (empty, Ncz.OpenFlags.READ);
        check ("opening a non-dataset fails", false);
    } catch (Ncz.DatasetError.NOT_NCZ e) {
        check ("Ncz.DatasetError.NOT_NCZ caught: " + e.message, e.domain == Ncz.DatasetError.quark ());
    } catch (Error e) {
        check ("NOT_NCZ expected, got: " + e.message, false);
    }

    string url = "file://" + Path.build_filename (dir, "t.file") + "#mode=nczarr,file";
    try {
        var ds = Ncz.Dataset.create (url, Ncz.CreateFlags.DEFAULT);
        var root = ds.get_root_group ();
        var y = root.add_dimension ("y", 3, false);
        var x = root.add_dimension ("x", 4, false);
        var v = root.add_variable ("t", Ncz.DataType.INT, { y, x });
        int32[] values = new int32[12];
        for (int i = 0; i < 12; i++)
            values[i] = i * 10;
        uint8[] raw = new uint8[12 * sizeof (int32)];
        Memory.copy (raw, values, raw.length);
        v.write_bytes ({ 0, 0 }, { 3, 4 }, null, new Bytes (raw));
        ds.close ();
        check ("dataset written", true);
    } catch (Error e) {
        check ("dataset written: " + e.message, false);
    }

    /* the CPU workers, set from code; 0 gives the default back */
    Ncz.set_max_threads (2);
    check ("Ncz.set_max_threads (2)", Ncz.get_max_threads () == 2);

    try {
        /* the variable keeps its dataset working without the caller
         * holding the dataset */
        var v = Ncz.Dataset.open (url, Ncz.OpenFlags.READ).get_root_group ().get_variable ("t");
        check ("variable found", v != null && v.get_n_dimensions () == 2);
        /* rows 1..2, columns 1 and 3 */
        var slab = v.read_bytes ({ 1, 1 }, { 2, 2 }, { 1, 2 });
        unowned uint8[] data = slab.get_data ();
        check ("slab size", data.length == 4 * sizeof (int32));
        int32[] got = new int32[4];
        Memory.copy (got, data, data.length);
        check ("slab values", got[0] == 50 && got[1] == 70 && got[2] == 90 && got[3] == 110);
        try {
            v.read_bytes ({ 0 }, { 1, 1 }, null);
            check ("mismatched lengths fail", false);
        } catch (Ncz.DatasetError.INVALID e) {
            check ("mismatched lengths: Ncz.DatasetError.INVALID", true);
        }
    } catch (Error e) {
        check ("reading a slab: " + e.message, false);
    }

    Ncz.set_max_threads (0);
    check ("Ncz.set_max_threads (0): the default", Ncz.get_max_threads () >= 1);

    print ("1..%d\n", n);
    return failures == 0 ? 0 : 1;
}
