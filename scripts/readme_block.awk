# Replace the lines between <!-- TAG:begin --> and <!-- TAG:end --> of a README by the file BLOCK:
#   awk -v tag=TAG -v block=BLOCK -f scripts/readme_block.awk README > NEW
# (scripts/update_readmes.sh and scripts/synopsis.sh: every generated block of a README).
$0 == "<!-- " tag ":begin -->" { print; while ((getline line < block) > 0) print line; skip = 1; next }
$0 == "<!-- " tag ":end -->" { skip = 0 }
!skip
