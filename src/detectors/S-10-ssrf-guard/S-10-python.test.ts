import detector from './python.js';
import { testPythonFixtures } from '../../../test/support/python-tester.js';

testPythonFixtures('S-10', detector, import.meta.url);
